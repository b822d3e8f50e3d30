package io.commitlane.storage;

import java.util.EnumSet;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.HistogramType;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * Reads {@link RocksDbStats} from one open RocksDB: about ten property reads, each taking RocksDB's
 * mutex briefly, so it is for a sampler or a person, never the commit path. Owns the database's
 * RocksDB {@link Statistics} (tickers only: every histogram is switched off, which is most of
 * their cost) when statistics are on.
 */
final class RocksProperties implements AutoCloseable {
  private final Statistics statistics;

  /** Statistics must be given to RocksDB before it opens: {@link #configure} does that. */
  RocksProperties(boolean withStatistics) {
    this.statistics = withStatistics ? new Statistics(EnumSet.allOf(HistogramType.class)) : null;
  }

  DBOptions configure(DBOptions options) {
    return statistics == null ? options : options.setStatistics(statistics);
  }

  /**
   * The caller is inside a handle's gate: the native handle stays open meanwhile. {@code stores}
   * are every store whose level 0 counts (RocksDB has no aggregate of that property).
   */
  RocksDbStats read(RocksDB db, ColumnFamilyHandle anyStore, Iterable<Store> stores) {
    try {
      return new RocksDbStats(
          db.getAggregatedLongProperty("rocksdb.estimate-pending-compaction-bytes"),
          db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables"),
          db.getAggregatedLongProperty("rocksdb.live-sst-files-size"),
          // Every store shares one table configuration and so one block cache: summing would count it once per store.
          db.getLongProperty(anyStore, "rocksdb.block-cache-usage"),
          ticker(TickerType.BLOCK_CACHE_HIT), ticker(TickerType.BLOCK_CACHE_MISS), ticker(TickerType.STALL_MICROS),
          db.getLongProperty("rocksdb.actual-delayed-write-rate"),
          db.getLongProperty("rocksdb.is-write-stopped") != 0,
          (int) db.getLongProperty("rocksdb.num-running-compactions"),
          (int) db.getLongProperty("rocksdb.num-running-flushes"),
          db.getAggregatedLongProperty("rocksdb.estimate-table-readers-mem"),
          level0Files(db, stores));
    } catch (RocksDBException e) {
      throw new StorageException("cannot read RocksDB's properties", e);
    }
  }

  /** Summed over the stores; one being dropped is skipped (its files go with it). */
  private static int level0Files(RocksDB db, Iterable<Store> stores) throws RocksDBException {
    int files = 0;
    for (Store s : stores) {
      boolean claimed;
      try {
        claimed = s.claim();
      } catch (StoreDroppedException e) {
        continue;
      }
      try {
        files += Integer.parseInt(db.getProperty(s.handle(), "rocksdb.num-files-at-level0").trim());
      } finally {
        if (claimed) {
          s.release();
        }
      }
    }
    return files;
  }

  private long ticker(TickerType type) {
    return statistics == null ? -1 : statistics.getTickerCount(type);
  }

  @Override
  public void close() {
    if (statistics != null) {
      statistics.close();
    }
  }
}
