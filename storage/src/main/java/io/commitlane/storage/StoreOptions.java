package io.commitlane.storage;

import io.commitlane.storage.internal.rocks.SharedCaches;
import java.util.HashMap;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * The native RocksDB options of one open database made from its {@link RocksDbTuning}: the
 * database-wide part applied to its {@link DBOptions}, and one {@link ColumnFamilyOptions} per
 * compression (stores with the same compression share it), all using the process's {@link
 * SharedCaches}. Closed with the database, after its RocksDB handle.
 */
final class StoreOptions implements AutoCloseable {
  private final RocksDbTuning tuning;
  private final SharedCaches.Lease caches;
  private final BloomFilter bloom;
  /** Guarded by this. */
  private final Map<Compression, ColumnFamilyOptions> byCompression = new HashMap<>();
  /** Guarded by this. */
  private boolean closed;

  StoreOptions(RocksDbTuning tuning) {
    this.tuning = tuning;
    this.caches = SharedCaches.acquire(tuning);
    this.bloom = tuning.bloomFilterBitsPerKey() == 0 ? null : new BloomFilter(tuning.bloomFilterBitsPerKey());
  }

  /** Apply the database-wide options. */
  DBOptions apply(DBOptions options) {
    options.setMaxOpenFiles(tuning.maxOpenFiles()).setMaxBackgroundJobs(tuning.maxBackgroundJobs());
    if (caches.writeBufferManager() != null) {
      options.setWriteBufferManager(caches.writeBufferManager());
    }
    return options;
  }

  /** The options to open or create {@code store} with. */
  synchronized ColumnFamilyOptions forStore(String store) {
    Compression c = tuning.compressionOf(store);
    return byCompression.computeIfAbsent(c, this::make);
  }

  private ColumnFamilyOptions make(Compression c) {
    BlockBasedTableConfig table = new BlockBasedTableConfig();
    if (caches.cache() != null) {
      table.setBlockCache(caches.cache());
    }
    if (bloom != null) {
      table.setFilterPolicy(bloom);
    }
    return new ColumnFamilyOptions()
        .setCompressionType(c.rocks())
        .setWriteBufferSize(tuning.writeBufferSize())
        .setMaxWriteBufferNumber(tuning.maxWriteBuffers())
        .setLevel0SlowdownWritesTrigger(tuning.level0SlowdownWritesTrigger())
        .setLevel0StopWritesTrigger(tuning.level0StopWritesTrigger())
        .setSoftPendingCompactionBytesLimit(tuning.softPendingCompactionBytesLimit())
        .setHardPendingCompactionBytesLimit(tuning.hardPendingCompactionBytesLimit())
        .setTableFormatConfig(table);
  }

  SharedCaches.Lease caches() {
    return caches;
  }

  /** After the RocksDB handle closed: frees the options and lets go of the shared caches. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    byCompression.values().forEach(ColumnFamilyOptions::close);
    byCompression.clear();
    if (bloom != null) {
      bloom.close();
    }
    caches.release();
  }
}
