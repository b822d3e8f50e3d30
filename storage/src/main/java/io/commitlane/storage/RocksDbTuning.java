package io.commitlane.storage;

import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.storage.internal.settings.StorageKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * RocksDB options commitlane sets when it opens a database. Every field is validated together;
 * errors name the field (as {@code rocksDbTuning.<field>}) and its range. Each field's key under
 * {@code commitlane.rocksdb}, range and doc line are defined once, in {@code StorageKeys}; the
 * defaults and what each costs are {@code reference.conf}'s (docs/configuration.md).
 *
 * <ul>
 *   <li>{@code compression}: the data-file compression of every store without an override;
 *       {@code storeCompression}: overrides by store name (the {@code default} store included).
 *       Compression costs CPU at flush and compaction only.
 *   <li>{@code writeBufferSize}: the memtable size of each store at which it is switched and
 *       flushed. {@code maxWriteBuffers}: memtables a store may hold (one being written, the
 *       others waiting for their flush).
 *   <li>{@code blockCacheSize}: one LRU block cache shared by every store of every database of
 *       the process opened with the same cache settings; it allocates as it fills, so an idle
 *       process pays nothing for its size. 0: each store gets RocksDB's own private cache.
 *   <li>{@code writeBufferManagerSize} (at most {@code blockCacheSize}, 0 = no bound): a bound on
 *       the memtables of every database sharing the cache; past it the <em>writing</em> database
 *       switches and flushes its memtable. Memtables are charged to the block cache, so cached
 *       blocks and memtables together stay near {@code blockCacheSize}. Off by default: when idle
 *       databases hold most of the bound, every write of a busy one flushes a memtable of a few
 *       keys (measured: one 2 KB file per write and write stalls with 100 databases), so size it
 *       above what idle databases keep.
 *   <li>{@code maxOpenFiles} (-1 = unlimited), {@code maxBackgroundJobs} (flushes and compactions
 *       that run at once for a database, on RocksDB's process-wide thread pools), {@code
 *       bloomFilterBitsPerKey} (0 = no filter; a point read of a missing key skips the file).
 *   <li>Write stalls: RocksDB slows writes (to its delayed write rate) and then stops them when
 *       flushes and compactions fall behind; commitlane turns a stall into backpressure (a full
 *       commit queue). {@code level0SlowdownWritesTrigger} and {@code level0StopWritesTrigger}
 *       (at least the slowdown trigger): level-0 files of a store at which writes slow down and
 *       stop (the lowest allowed is RocksDB's level-0 compaction trigger, below which RocksDB would
 *       raise them silently). {@code softPendingCompactionBytesLimit} and {@code
 *       hardPendingCompactionBytesLimit} (soft at most hard unless hard is 0): bytes compaction is
 *       behind by (RocksDB's estimate) at which writes slow down and stop; 0 turns that limit off.
 *       The memtable limit is {@code maxWriteBuffers}: all of a store's memtables waiting for their
 *       flush stop writes (with more than 3, one fewer slows them).
 * </ul>
 */
public record RocksDbTuning(Compression compression, Map<String, Compression> storeCompression, long writeBufferSize,
    int maxWriteBuffers, long blockCacheSize, long writeBufferManagerSize, int maxOpenFiles, int maxBackgroundJobs,
    int bloomFilterBitsPerKey, int level0SlowdownWritesTrigger, int level0StopWritesTrigger,
    long softPendingCompactionBytesLimit, long hardPendingCompactionBytesLimit) {

  public static final Compression DEFAULT_COMPRESSION = Compression.LZ4;
  public static final long KIB = 1024;
  public static final long MIB = 1024 * KIB;
  public static final long GIB = 1024 * MIB;
  public static final long DEFAULT_WRITE_BUFFER_SIZE = 64 * MIB;
  public static final int DEFAULT_WRITE_BUFFERS = 2;
  public static final long DEFAULT_BLOCK_CACHE_SIZE = 256 * MIB;
  public static final long DEFAULT_WRITE_BUFFER_MANAGER_SIZE = 0;
  public static final int DEFAULT_BACKGROUND_JOBS = 2;
  public static final long TIB = 1024 * GIB;
  public static final int DEFAULT_LEVEL0_SLOWDOWN_TRIGGER = 20;
  public static final int DEFAULT_LEVEL0_STOP_TRIGGER = 36;
  public static final long DEFAULT_SOFT_PENDING_COMPACTION_LIMIT = 64 * GIB;
  public static final long DEFAULT_HARD_PENDING_COMPACTION_LIMIT = 256 * GIB;

  public RocksDbTuning {
    List<SettingError> errors = new ArrayList<>();
    if (compression == null) {
      errors.add(new SettingError("rocksDbTuning.compression", null, StorageKeys.COMPRESSION.allowed()));
    }
    Map<String, Compression> overrides = new LinkedHashMap<>();
    if (storeCompression == null) {
      errors.add(new SettingError("rocksDbTuning.storeCompression", null, "must be a map of store name to compression"));
    } else {
      storeCompression.forEach((store, c) -> {
        try {
          StoreNames.requireValid(store);
        } catch (InvalidStoreNameException e) {
          errors.add(new SettingError("rocksDbTuning.storeCompression." + store, c, "must name a valid store: " + e.getMessage()));
        }
        if (c == null) {
          errors.add(new SettingError("rocksDbTuning.storeCompression." + store, null, StorageKeys.COMPRESSION.allowed()));
        }
        overrides.put(store, c);
      });
    }
    storeCompression = java.util.Collections.unmodifiableMap(overrides);
    check(errors, StorageKeys.WRITE_BUFFER_SIZE, writeBufferSize);
    check(errors, StorageKeys.MAX_WRITE_BUFFERS, maxWriteBuffers);
    check(errors, StorageKeys.BLOCK_CACHE_SIZE, blockCacheSize);
    if (!StorageKeys.WRITE_BUFFER_MANAGER_SIZE.allows(writeBufferManagerSize)) {
      check(errors, StorageKeys.WRITE_BUFFER_MANAGER_SIZE, writeBufferManagerSize);
    } else if (writeBufferManagerSize != 0 && blockCacheSize == 0) {
      errors.add(new SettingError("rocksDbTuning.writeBufferManagerSize", writeBufferManagerSize,
          "needs a shared block cache (blockCacheSize > 0), which it charges memtables to; set it to 0 or give the cache a size"));
    } else if (writeBufferManagerSize > blockCacheSize) {
      errors.add(new SettingError("rocksDbTuning.writeBufferManagerSize", writeBufferManagerSize,
          "must not exceed blockCacheSize (" + blockCacheSize + " bytes): memtables are charged to the cache, so a larger"
              + " bound would evict every cached block; raise the cache or lower the bound"));
    }
    check(errors, StorageKeys.MAX_OPEN_FILES, maxOpenFiles);
    check(errors, StorageKeys.MAX_BACKGROUND_JOBS, maxBackgroundJobs);
    check(errors, StorageKeys.BLOOM_FILTER_BITS_PER_KEY, bloomFilterBitsPerKey);
    check(errors, StorageKeys.LEVEL0_SLOWDOWN_WRITES_TRIGGER, level0SlowdownWritesTrigger);
    if (!StorageKeys.LEVEL0_STOP_WRITES_TRIGGER.allows(level0StopWritesTrigger)) {
      check(errors, StorageKeys.LEVEL0_STOP_WRITES_TRIGGER, level0StopWritesTrigger);
    } else if (level0StopWritesTrigger < level0SlowdownWritesTrigger) {
      errors.add(new SettingError("rocksDbTuning.level0StopWritesTrigger", level0StopWritesTrigger,
          "must be at least level0SlowdownWritesTrigger (" + level0SlowdownWritesTrigger + "): writes slow down before"
              + " they stop; raise it or lower the slowdown trigger"));
    }
    check(errors, StorageKeys.SOFT_PENDING_COMPACTION_BYTES_LIMIT, softPendingCompactionBytesLimit);
    check(errors, StorageKeys.HARD_PENDING_COMPACTION_BYTES_LIMIT, hardPendingCompactionBytesLimit);
    if (hardPendingCompactionBytesLimit != 0 && softPendingCompactionBytesLimit > hardPendingCompactionBytesLimit
        && StorageKeys.HARD_PENDING_COMPACTION_BYTES_LIMIT.allows(hardPendingCompactionBytesLimit)) {
      errors.add(new SettingError("rocksDbTuning.softPendingCompactionBytesLimit", softPendingCompactionBytesLimit,
          "must not exceed hardPendingCompactionBytesLimit (" + hardPendingCompactionBytesLimit + " bytes): writes slow"
              + " down before they stop; raise the hard limit, lower the soft one, or set the hard one to 0 (off)"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  public static RocksDbTuning defaults() {
    return new RocksDbTuning(DEFAULT_COMPRESSION, Map.of(), DEFAULT_WRITE_BUFFER_SIZE, DEFAULT_WRITE_BUFFERS, DEFAULT_BLOCK_CACHE_SIZE,
        DEFAULT_WRITE_BUFFER_MANAGER_SIZE, -1, DEFAULT_BACKGROUND_JOBS, 0, DEFAULT_LEVEL0_SLOWDOWN_TRIGGER, DEFAULT_LEVEL0_STOP_TRIGGER,
        DEFAULT_SOFT_PENDING_COMPACTION_LIMIT, DEFAULT_HARD_PENDING_COMPACTION_LIMIT);
  }

  /** RocksDB's own defaults for everything: snappy, per-store caches, no memtable bound. */
  public static RocksDbTuning rocksDbDefaults() {
    return new RocksDbTuning(Compression.SNAPPY, Map.of(), DEFAULT_WRITE_BUFFER_SIZE, DEFAULT_WRITE_BUFFERS, 0, 0, -1,
        DEFAULT_BACKGROUND_JOBS, 0, DEFAULT_LEVEL0_SLOWDOWN_TRIGGER, DEFAULT_LEVEL0_STOP_TRIGGER,
        DEFAULT_SOFT_PENDING_COMPACTION_LIMIT, DEFAULT_HARD_PENDING_COMPACTION_LIMIT);
  }

  /** The compression of {@code store}: its override, else the default. */
  public Compression compressionOf(String store) {
    return storeCompression.getOrDefault(store, compression);
  }

  public RocksDbTuning withCompression(Compression c) {
    return new RocksDbTuning(c, storeCompression, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  public RocksDbTuning withStoreCompression(String store, Compression c) {
    Map<String, Compression> m = new LinkedHashMap<>(storeCompression);
    m.put(Objects.requireNonNull(store, "store"), c);
    return new RocksDbTuning(compression, m, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  public RocksDbTuning withWriteBuffers(long size, int count) {
    return new RocksDbTuning(compression, storeCompression, size, count, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  /** The shared block cache and the write-buffer manager's bound (0 turns either off). */
  public RocksDbTuning withSharedMemory(long cacheSize, long writeBufferManagerSize) {
    return new RocksDbTuning(compression, storeCompression, writeBufferSize, maxWriteBuffers, cacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  public RocksDbTuning withMaxOpenFiles(int files) {
    return new RocksDbTuning(compression, storeCompression, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        files, maxBackgroundJobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger, level0StopWritesTrigger,
        softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  public RocksDbTuning withMaxBackgroundJobs(int jobs) {
    return new RocksDbTuning(compression, storeCompression, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, jobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger, level0StopWritesTrigger,
        softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  public RocksDbTuning withBloomFilterBitsPerKey(int bits) {
    return new RocksDbTuning(compression, storeCompression, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bits, level0SlowdownWritesTrigger, level0StopWritesTrigger,
        softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit);
  }

  /** The level-0 files of a store at which RocksDB slows writes down and at which it stops them ({@code stop >= slowdown}). */
  public RocksDbTuning withLevel0WriteTriggers(int slowdown, int stop) {
    return new RocksDbTuning(compression, storeCompression, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bloomFilterBitsPerKey, slowdown, stop, softPendingCompactionBytesLimit,
        hardPendingCompactionBytesLimit);
  }

  /**
   * The bytes compaction may be behind by (RocksDB's estimate) before RocksDB slows writes down
   * ({@code soft}) and stops them ({@code hard}); 0 = off, {@code soft <= hard} unless hard is 0.
   */
  public RocksDbTuning withPendingCompactionLimits(long soft, long hard) {
    return new RocksDbTuning(compression, storeCompression, writeBufferSize, maxWriteBuffers, blockCacheSize, writeBufferManagerSize,
        maxOpenFiles, maxBackgroundJobs, bloomFilterBitsPerKey, level0SlowdownWritesTrigger, level0StopWritesTrigger, soft, hard);
  }

  /** Checks a field against its definition; errors name it as {@code rocksDbTuning.<field>}. */
  private static void check(List<SettingError> errors, Setting setting, long value) {
    setting.check(errors, setting.javaName(), value);
  }
}
