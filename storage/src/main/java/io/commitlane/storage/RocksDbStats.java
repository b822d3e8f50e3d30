package io.commitlane.storage;

/**
 * What RocksDB itself reports about one open database, the numbers an operator watches before a
 * write stall or a full disk: read from RocksDB's properties (and, for the block cache and the
 * stall time, its statistics) when asked, summed over every store.
 *
 * @param pendingCompactionBytes bytes RocksDB estimates compaction must rewrite to bring every
 *     level under its target ({@code rocksdb.estimate-pending-compaction-bytes}); RocksDB slows,
 *     then stops, writes when this grows past its limits
 * @param memtableBytes bytes held by memtables, active, immutable and pinned
 *     ({@code rocksdb.cur-size-all-mem-tables})
 * @param liveSstBytes bytes of the SST files of the current version ({@code rocksdb.live-sst-files-size})
 * @param blockCacheBytes bytes held by the block cache ({@code rocksdb.block-cache-usage})
 * @param blockCacheHits block-cache hits since open ({@code rocksdb.block.cache.hit}); -1 when
 *     RocksDB statistics are off
 * @param blockCacheMisses block-cache misses since open ({@code rocksdb.block.cache.miss}); -1 when
 *     RocksDB statistics are off
 * @param stallMicros microseconds writers were delayed or stopped by a write stall since open
 *     ({@code rocksdb.stall.micros}); -1 when RocksDB statistics are off. RocksDB adds a writer's
 *     wait when the writer goes on: it grows during a slowdown, but a stop shows here only once it
 *     ends (while it lasts, {@code writeStopped} says so)
 * @param delayedWriteRate the rate (bytes/s) RocksDB holds writes to while it slows them, 0 when it
 *     does not, also while it stops them ({@code rocksdb.actual-delayed-write-rate})
 * @param writeStopped whether RocksDB stops writes now ({@code rocksdb.is-write-stopped})
 * @param runningCompactions compactions running now ({@code rocksdb.num-running-compactions})
 * @param runningFlushes flushes running now ({@code rocksdb.num-running-flushes})
 * @param tableReadersBytes bytes held outside the block cache by the open SST files' index and
 *     filter blocks ({@code rocksdb.estimate-table-readers-mem}); with {@code
 *     cache_index_and_filter_blocks} off (commitlane's default) this grows with the data
 * @param level0Files SST files in level 0 ({@code rocksdb.num-files-at-level0}); RocksDB slows
 *     writes at 20 and stops them at 36 by default, so it is the first sign of a flush outrunning
 *     compaction
 */
public record RocksDbStats(long pendingCompactionBytes, long memtableBytes, long liveSstBytes, long blockCacheBytes,
    long blockCacheHits, long blockCacheMisses, long stallMicros, long delayedWriteRate, boolean writeStopped,
    int runningCompactions, int runningFlushes, long tableReadersBytes, int level0Files) {
  /** Nothing known (a closed database). */
  public static final RocksDbStats UNKNOWN = new RocksDbStats(0, 0, 0, 0, -1, -1, -1, 0, false, 0, 0, 0, 0);

  /** Whether the block-cache and stall counters are there (RocksDB statistics are on). */
  public boolean hasStatistics() {
    return blockCacheHits >= 0;
  }

  /** Hits over lookups since open, in [0, 1]; NaN without statistics or before the first lookup. */
  public double blockCacheHitRate() {
    long lookups = blockCacheHits + blockCacheMisses;
    return !hasStatistics() || lookups == 0 ? Double.NaN : (double) blockCacheHits / lookups;
  }
}
