package io.commitlane.bench.dataset;

import io.commitlane.storage.RocksDbStats;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * What RocksDB reports about one open database, read the same way for commitlane (through its
 * {@link RocksDbStats}) and for a raw handle (the same properties and ticker): a sampler's reads,
 * each taking RocksDB's mutex briefly, never per commit.
 *
 * @param stallMicros microseconds writes were delayed or stopped since open
 * @param pendingCompactionBytes RocksDB's estimate of what compaction must still rewrite
 * @param level0Files SST files in level 0, every store
 * @param memtableBytes memtables, active, immutable and pinned
 * @param blockCacheBytes the block cache's usage
 * @param tableReadersBytes index and filter blocks held outside the block cache
 */
public record RocksNumbers(long stallMicros, long pendingCompactionBytes, int level0Files, long memtableBytes, long blockCacheBytes,
    long tableReadersBytes) {

  static RocksNumbers of(RocksDbStats s) {
    return new RocksNumbers(s.stallMicros(), s.pendingCompactionBytes(), s.level0Files(), s.memtableBytes(), s.blockCacheBytes(),
        s.tableReadersBytes());
  }

  /** A raw handle's numbers, as commitlane reads its own ({@code RocksProperties}). */
  static RocksNumbers of(RocksDB db, List<ColumnFamilyHandle> stores, Statistics statistics) {
    try {
      int level0 = 0;
      for (ColumnFamilyHandle h : stores) {
        level0 += Integer.parseInt(db.getProperty(h, "rocksdb.num-files-at-level0").trim());
      }
      return new RocksNumbers(statistics.getTickerCount(TickerType.STALL_MICROS),
          db.getAggregatedLongProperty("rocksdb.estimate-pending-compaction-bytes"), level0,
          db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables"),
          db.getLongProperty(stores.get(0), "rocksdb.block-cache-usage"), // one cache for every store: not summed
          db.getAggregatedLongProperty("rocksdb.estimate-table-readers-mem"));
    } catch (RocksDBException e) {
      throw new IllegalStateException("cannot read RocksDB's properties", e);
    }
  }
}
