package io.commitlane.bench.dataset;

import io.commitlane.storage.Compression;
import io.commitlane.storage.RocksDbTuning;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.HistogramType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.WriteBufferManager;

/**
 * The native RocksDB options commitlane opens a database with (WAL off), for raw rocksdbjni
 * handles on the same files: the bulk loader and the raw peer, which then differ from commitlane
 * in how they commit, not in how RocksDB is tuned. It mirrors storage's {@code StoreOptions}
 * (compression per store, memtables, write-stall triggers, one block cache, Bloom filter) and the database options
 * of {@code SharedDatabase.open} (atomic flush, statistics with tickers only, open files,
 * background jobs); a test compares the OPTIONS files RocksDB writes for both. Its own cache,
 * not commitlane's process-wide one: a raw handle and commitlane never share memory.
 */
final class CommitlaneRocksOptions implements AutoCloseable {
  static {
    RocksDB.loadLibrary();
  }

  private final RocksDbTuning tuning;
  private final Cache cache;
  private final WriteBufferManager writeBufferManager;
  private final BloomFilter bloom;
  private final Statistics statistics = new Statistics(EnumSet.allOf(HistogramType.class));
  private final DBOptions dbOptions;
  private final Map<Compression, ColumnFamilyOptions> byCompression = new EnumMap<>(Compression.class);
  private final List<AutoCloseable> writerOptions = new ArrayList<>();

  CommitlaneRocksOptions(RocksDbTuning tuning) {
    this.tuning = tuning;
    this.cache = tuning.blockCacheSize() == 0 ? null : new LRUCache(tuning.blockCacheSize());
    this.writeBufferManager = tuning.writeBufferManagerSize() == 0 ? null : new WriteBufferManager(tuning.writeBufferManagerSize(), cache, false);
    this.bloom = tuning.bloomFilterBitsPerKey() == 0 ? null : new BloomFilter(tuning.bloomFilterBitsPerKey());
    this.dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true).setAtomicFlush(true)
        .setStatistics(statistics).setMaxOpenFiles(tuning.maxOpenFiles()).setMaxBackgroundJobs(tuning.maxBackgroundJobs());
    if (writeBufferManager != null) {
      dbOptions.setWriteBufferManager(writeBufferManager);
    }
  }

  DBOptions dbOptions() {
    return dbOptions;
  }

  /** The options of the store (column family) of that name. */
  synchronized ColumnFamilyOptions forStore(String store) {
    return byCompression.computeIfAbsent(tuning.compressionOf(store), this::make);
  }

  private ColumnFamilyOptions make(Compression c) {
    BlockBasedTableConfig table = new BlockBasedTableConfig();
    if (cache != null) {
      table.setBlockCache(cache);
    }
    if (bloom != null) {
      table.setFilterPolicy(bloom);
    }
    return new ColumnFamilyOptions().setCompressionType(rocks(c)).setWriteBufferSize(tuning.writeBufferSize())
        .setMaxWriteBufferNumber(tuning.maxWriteBuffers())
        .setLevel0SlowdownWritesTrigger(tuning.level0SlowdownWritesTrigger())
        .setLevel0StopWritesTrigger(tuning.level0StopWritesTrigger())
        .setSoftPendingCompactionBytesLimit(tuning.softPendingCompactionBytesLimit())
        .setHardPendingCompactionBytesLimit(tuning.hardPendingCompactionBytesLimit())
        .setTableFormatConfig(table);
  }

  /** Every store of the database in {@code dir}, each with its options, the default store first (as RocksDB lists them). */
  List<ColumnFamilyDescriptor> descriptors(Path dir) throws RocksDBException {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (Options probe = new Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(probe, dir.toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name, forStore(new String(name, StandardCharsets.UTF_8))));
      }
    }
    return descriptors;
  }

  /** Options for an {@code SstFileWriter} writing files of {@code store}: its table format and compression. */
  synchronized Options sstWriterOptions(String store) {
    Options o = new Options(dbOptions, forStore(store));
    writerOptions.add(o);
    return o;
  }

  /** The statistics every handle opened with {@link #dbOptions()} counts into (write stalls among them). */
  Statistics statistics() {
    return statistics;
  }

  static CompressionType rocks(Compression c) {
    return switch (c) {
      case NONE -> CompressionType.NO_COMPRESSION;
      case SNAPPY -> CompressionType.SNAPPY_COMPRESSION;
      case LZ4 -> CompressionType.LZ4_COMPRESSION;
      case ZSTD -> CompressionType.ZSTD_COMPRESSION;
    };
  }

  /** After every handle opened with these options closed. */
  @Override
  public synchronized void close() throws Exception {
    for (AutoCloseable o : writerOptions) {
      o.close();
    }
    byCompression.values().forEach(ColumnFamilyOptions::close);
    dbOptions.close();
    statistics.close();
    if (bloom != null) {
      bloom.close();
    }
    if (writeBufferManager != null) {
      writeBufferManager.close();
    }
    if (cache != null) {
      cache.close();
    }
  }
}
