package io.commitlane.storage.internal.settings;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.Compression;
import io.commitlane.storage.OccValidation;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * INTERNAL API. The settings the storage module owns ({@code CommitlaneSettings}, {@code RocksDbWal},
 * {@code RocksDbTuning}), each defined once: key, Java field, range and a line of doc. Keys are
 * relative to {@code commitlane}; the defaults are in the actors module's {@code reference.conf}.
 */
@InternalApi
public final class StorageKeys {
  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;
  private static final long GIB = 1024 * MIB;
  private static final long TIB = 1024 * GIB;
  private static final long PIB = 1024 * TIB;

  public static final Setting OCC_LOCK_BUCKETS = Setting.integer("occ-lock-buckets", "occLockBuckets", 16, 16_777_216,
      "lock buckets of each database's version table: the commit lock stripes and validation's first check");
  public static final Setting OCC_VALIDATION = Setting.oneOf("occ-validation", "occValidation",
      names(OccValidation.values(), OccValidation::settingName), "sorted per-bucket locks, or one commit lock per database");
  public static final Setting OCC_BLIND_WRITES = Setting.oneOf("occ-blind-writes", "occBlindWrites",
      names(BlindWrites.values(), BlindWrites::settingName), "whether a write conflicts with a later commit's write of the same key");

  public static final Setting WAL_MANUAL_FLUSH = Setting.flag("rocksdb-wal.manual-flush", "rocksDbWal.manualFlush",
      "RocksDB manual_wal_flush: writes stay in RocksDB's WAL buffer until a group sync");
  public static final Setting WAL_SYNC_INTERVAL = Setting.duration("rocksdb-wal.sync-interval", "rocksDbWal.syncInterval",
      Duration.ZERO, Duration.ofSeconds(60), "0..60 s", "how often a group syncer syncs RocksDB's WAL; 0 = no periodic sync");
  public static final Setting WAL_ACK_AFTER_SYNC = Setting.flag("rocksdb-wal.ack-after-sync", "rocksDbWal.ackAfterSync",
      "commits complete only after a group sync that started after their write");
  public static final Setting WAL_UNORDERED_WRITE = Setting.flag("rocksdb-wal.unordered-write", "rocksDbWal.unorderedWrite",
      "RocksDB unordered_write; not with pipelined-write");
  public static final Setting WAL_PIPELINED_WRITE = Setting.flag("rocksdb-wal.pipelined-write", "rocksDbWal.pipelinedWrite",
      "RocksDB enable_pipelined_write; not with unordered-write");
  public static final Setting WAL_TWO_WRITE_QUEUES = Setting.flag("rocksdb-wal.two-write-queues", "rocksDbWal.twoWriteQueues",
      "RocksDB two_write_queues: WAL-only writes get their own queue");

  public static final Setting COMPRESSION = Setting.oneOf("rocksdb.compression", "rocksDbTuning.compression",
      names(Compression.values(), Compression::settingName), "compression of data files");
  public static final Setting WRITE_BUFFER_SIZE = Setting.size("rocksdb.write-buffer-size", "rocksDbTuning.writeBufferSize",
      64 * KIB, 4 * GIB, "64 KiB..4 GiB", "memtable size of each store at which it is switched and flushed");
  public static final Setting MAX_WRITE_BUFFERS = Setting.integer("rocksdb.max-write-buffers", "rocksDbTuning.maxWriteBuffers",
      2, 64, "memtables a store may hold");
  public static final Setting BLOCK_CACHE_SIZE = Setting.sizeOrZero("rocksdb.block-cache-size", "rocksDbTuning.blockCacheSize",
      "0", MIB, TIB, "1 MiB..1 TiB", "the LRU block cache shared by the process's databases; 0 = a private cache per store");
  public static final Setting WRITE_BUFFER_MANAGER_SIZE = Setting.sizeOrZero("rocksdb.write-buffer-manager-size",
      "rocksDbTuning.writeBufferManagerSize", "0", MIB, TIB, "1 MiB..1 TiB",
      "a bound on the memtables of every database sharing the block cache; 0 = no bound");
  public static final Setting MAX_OPEN_FILES = Setting.integerOr("rocksdb.max-open-files", "rocksDbTuning.maxOpenFiles",
      -1, "-1 (unlimited)", 16, 1_000_000, "data files a database keeps open");
  public static final Setting MAX_BACKGROUND_JOBS = Setting.integer("rocksdb.max-background-jobs", "rocksDbTuning.maxBackgroundJobs",
      1, 64, "flushes and compactions that run at once for a database");
  public static final Setting BLOOM_FILTER_BITS_PER_KEY = Setting.integer("rocksdb.bloom-filter-bits-per-key",
      "rocksDbTuning.bloomFilterBitsPerKey", 0, 32, "Bloom filter bits per key in each data file; 0 = no filter");
  public static final Setting LEVEL0_SLOWDOWN_WRITES_TRIGGER = Setting.integer("rocksdb.level0-slowdown-writes-trigger",
      "rocksDbTuning.level0SlowdownWritesTrigger", 4, 10_000, "level-0 files of a store at which writes slow down");
  public static final Setting LEVEL0_STOP_WRITES_TRIGGER = Setting.integer("rocksdb.level0-stop-writes-trigger",
      "rocksDbTuning.level0StopWritesTrigger", 4, 10_000, "level-0 files of a store at which writes stop");
  public static final Setting SOFT_PENDING_COMPACTION_BYTES_LIMIT = Setting.sizeOrZero("rocksdb.soft-pending-compaction-bytes-limit",
      "rocksDbTuning.softPendingCompactionBytesLimit", "0 (off)", MIB, PIB, "1 MiB..1 PiB",
      "bytes compaction is behind by at which writes slow down");
  public static final Setting HARD_PENDING_COMPACTION_BYTES_LIMIT = Setting.sizeOrZero("rocksdb.hard-pending-compaction-bytes-limit",
      "rocksDbTuning.hardPendingCompactionBytesLimit", "0 (off)", MIB, PIB, "1 MiB..1 PiB",
      "bytes compaction is behind by at which writes stop");

  /** Every setting above, in reference.conf's order. */
  public static final List<Setting> ALL = List.of(OCC_LOCK_BUCKETS, OCC_VALIDATION, OCC_BLIND_WRITES, WAL_MANUAL_FLUSH,
      WAL_SYNC_INTERVAL, WAL_ACK_AFTER_SYNC, WAL_UNORDERED_WRITE, WAL_PIPELINED_WRITE, WAL_TWO_WRITE_QUEUES, COMPRESSION,
      WRITE_BUFFER_SIZE, MAX_WRITE_BUFFERS, BLOCK_CACHE_SIZE, WRITE_BUFFER_MANAGER_SIZE, MAX_OPEN_FILES, MAX_BACKGROUND_JOBS,
      BLOOM_FILTER_BITS_PER_KEY, LEVEL0_SLOWDOWN_WRITES_TRIGGER, LEVEL0_STOP_WRITES_TRIGGER, SOFT_PENDING_COMPACTION_BYTES_LIMIT,
      HARD_PENDING_COMPACTION_BYTES_LIMIT);

  private StorageKeys() {}

  /** The setting whose Java name is {@code javaName}, or null. */
  public static Setting byJavaName(String javaName) {
    for (Setting s : ALL) {
      if (s.javaName().equals(javaName)) {
        return s;
      }
    }
    return null;
  }

  private static <E> List<String> names(E[] values, Function<E, String> name) {
    return Arrays.stream(values).map(name).toList();
  }
}
