package io.commitlane.actors.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.Compression;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.RocksDbTuning;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code commitlane.rocksdb { ... }}: read with its defaults, every bad key named with its range, unknown keys refused. */
class RocksDbTuningSettingsTest {
  private static PipelineSettings parse(String hocon) {
    return PipelineSettings.fromConfig(ConfigFactory.parseString(hocon).withFallback(ConfigFactory.defaultReference()));
  }

  @Test
  void theDefaultsAreTheStorageDefaults() {
    assertEquals(RocksDbTuning.defaults(), parse("").storage().rocksDbTuning());
  }

  @Test
  void valuesAndPerStoreCompressionAreRead() {
    RocksDbTuning t = parse("""
        commitlane.rocksdb {
          compression = zstd
          store-compression { default = none, orders = lz4, "a.b" = snappy }
          write-buffer-size = 8 MiB
          max-write-buffers = 4
          block-cache-size = 1 GiB
          write-buffer-manager-size = 0
          max-open-files = 512
          max-background-jobs = 4
          bloom-filter-bits-per-key = 10
          level0-slowdown-writes-trigger = 8
          level0-stop-writes-trigger = 12
          soft-pending-compaction-bytes-limit = 16 GiB
          hard-pending-compaction-bytes-limit = 0
        }""").storage().rocksDbTuning();
    assertEquals(Compression.ZSTD, t.compression());
    assertEquals(Map.of("default", Compression.NONE, "orders", Compression.LZ4, "a.b", Compression.SNAPPY), t.storeCompression());
    assertEquals(Compression.ZSTD, t.compressionOf("events"));
    assertEquals(8L << 20, t.writeBufferSize());
    assertEquals(4, t.maxWriteBuffers());
    assertEquals(1L << 30, t.blockCacheSize());
    assertEquals(0, t.writeBufferManagerSize());
    assertEquals(512, t.maxOpenFiles());
    assertEquals(4, t.maxBackgroundJobs());
    assertEquals(10, t.bloomFilterBitsPerKey());
    assertEquals(8, t.level0SlowdownWritesTrigger());
    assertEquals(12, t.level0StopWritesTrigger());
    assertEquals(16L << 30, t.softPendingCompactionBytesLimit());
    assertEquals(0, t.hardPendingCompactionBytesLimit());
  }

  @Test
  void writeStallTriggersAreNamedWithTheirRangeAndOrder() {
    InvalidSettingsException ranges = assertThrows(InvalidSettingsException.class, () -> parse("""
        commitlane.rocksdb {
          level0-slowdown-writes-trigger = 2
          level0-stop-writes-trigger = 20000
          soft-pending-compaction-bytes-limit = 1 KiB
          hard-pending-compaction-bytes-limit = plenty
        }"""));
    assertEquals(java.util.Set.of("commitlane.rocksdb.hard-pending-compaction-bytes-limit",
        "commitlane.rocksdb.level0-slowdown-writes-trigger", "commitlane.rocksdb.level0-stop-writes-trigger",
        "commitlane.rocksdb.soft-pending-compaction-bytes-limit"), java.util.Set.copyOf(ranges.fields()));
    assertTrue(ranges.getMessage().contains("commitlane.rocksdb.level0-slowdown-writes-trigger = 2: must be an integer in"
        + " 4..10000"), ranges.getMessage());
    assertTrue(ranges.getMessage().contains("commitlane.rocksdb.soft-pending-compaction-bytes-limit = \"1 KiB\": must be 0"
        + " (off) or a size in 1 MiB..1 PiB"), ranges.getMessage());

    InvalidSettingsException order = assertThrows(InvalidSettingsException.class, () -> parse("""
        commitlane.rocksdb {
          level0-slowdown-writes-trigger = 40
          soft-pending-compaction-bytes-limit = 512 GiB
        }"""));
    assertEquals(List.of("commitlane.rocksdb.level0-stop-writes-trigger", "commitlane.rocksdb.soft-pending-compaction-bytes-limit"),
        order.fields());
    assertTrue(order.getMessage().contains("commitlane.rocksdb.level0-stop-writes-trigger = 36: must be at least"), order.getMessage());
  }

  @Test
  void everyBadKeyIsNamedWithItsRange() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> parse("""
        commitlane.rocksdb {
          compression = gzip
          store-compression { orders = brotli }
          write-buffer-size = 1 KiB
          max-write-buffers = 1
          block-cache-size = lots
          max-open-files = 3
          max-background-jobs = 65
          bloom-filter-bits-per-key = 2.5
        }"""));
    assertEquals(java.util.Set.of("commitlane.rocksdb.compression", "commitlane.rocksdb.store-compression.orders",
        "commitlane.rocksdb.block-cache-size", "commitlane.rocksdb.bloom-filter-bits-per-key",
        "commitlane.rocksdb.write-buffer-size", "commitlane.rocksdb.max-write-buffers", "commitlane.rocksdb.max-open-files",
        "commitlane.rocksdb.max-background-jobs"), java.util.Set.copyOf(e.fields()));
    assertTrue(e.getMessage().contains("commitlane.rocksdb.write-buffer-size = \"1 KiB\": must be a size in 64 KiB..4 GiB"), e.getMessage());
    assertTrue(e.getMessage().contains("commitlane.rocksdb.max-background-jobs = 65: must be an integer in 1..64"), e.getMessage());
  }

  @Test
  void theMemtableBoundMayNotExceedTheCache() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> parse("commitlane.rocksdb { block-cache-size = 64 MiB, write-buffer-manager-size = 128 MiB }"));
    assertEquals(List.of("commitlane.rocksdb.write-buffer-manager-size"), e.fields());
  }

  @Test
  void aMisspeltKeyNamesTheNearestOne() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> parse("commitlane.rocksdb.block-cache-sise = 1 GiB"));
    assertEquals(List.of("commitlane.rocksdb.block-cache-sise"), e.fields());
    assertTrue(e.getMessage().contains("the nearest known key is commitlane.rocksdb.block-cache-size"), e.getMessage());
  }
}
