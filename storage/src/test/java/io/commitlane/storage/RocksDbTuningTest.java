package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.TableProperties;

/** RocksDB tuning: every bad field reported at once, and the compression asked for is what the data files get. */
class RocksDbTuningTest {
  @TempDir
  Path dir;

  @Test
  void everyBadFieldIsReportedWithItsRange() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> new RocksDbTuning(null, Map.of("__commitlane_own", Compression.LZ4), 1024, 1, 5, 10, 3, 0, 99,
            20, 36, 64 * RocksDbTuning.GIB, 256 * RocksDbTuning.GIB));
    assertEquals(List.of("rocksDbTuning.compression", "rocksDbTuning.storeCompression.__commitlane_own",
        "rocksDbTuning.writeBufferSize", "rocksDbTuning.maxWriteBuffers", "rocksDbTuning.blockCacheSize",
        "rocksDbTuning.writeBufferManagerSize", "rocksDbTuning.maxOpenFiles", "rocksDbTuning.maxBackgroundJobs",
        "rocksDbTuning.bloomFilterBitsPerKey"), e.fields());
    assertTrue(e.getMessage().contains("rocksDbTuning.writeBufferSize = 1024: must be a size in 64 KiB..4 GiB"), e.getMessage());
  }

  @Test
  void writeStallTriggersAreCheckedAgainstEachOther() {
    RocksDbTuning d = RocksDbTuning.defaults();
    assertEquals(20, d.level0SlowdownWritesTrigger());
    assertEquals(36, d.level0StopWritesTrigger());
    assertEquals(64 * RocksDbTuning.GIB, d.softPendingCompactionBytesLimit());
    assertEquals(256 * RocksDbTuning.GIB, d.hardPendingCompactionBytesLimit());

    InvalidSettingsException ranges = assertThrows(InvalidSettingsException.class,
        () -> d.withLevel0WriteTriggers(3, 10_001).withPendingCompactionLimits(1024, -1));
    assertEquals(List.of("rocksDbTuning.level0SlowdownWritesTrigger", "rocksDbTuning.level0StopWritesTrigger"), ranges.fields());
    assertTrue(ranges.getMessage().contains("rocksDbTuning.level0SlowdownWritesTrigger = 3: must be an integer in 4..10000"),
        ranges.getMessage());
    InvalidSettingsException limits = assertThrows(InvalidSettingsException.class,
        () -> d.withPendingCompactionLimits(1024, -1));
    assertEquals(List.of("rocksDbTuning.softPendingCompactionBytesLimit", "rocksDbTuning.hardPendingCompactionBytesLimit"),
        limits.fields());

    InvalidSettingsException order = assertThrows(InvalidSettingsException.class, () -> d.withLevel0WriteTriggers(30, 20));
    assertEquals(List.of("rocksDbTuning.level0StopWritesTrigger"), order.fields());
    assertTrue(order.getMessage().contains("must be at least level0SlowdownWritesTrigger (30)"), order.getMessage());
    InvalidSettingsException softAboveHard = assertThrows(InvalidSettingsException.class,
        () -> d.withPendingCompactionLimits(8 * RocksDbTuning.GIB, 4 * RocksDbTuning.GIB));
    assertEquals(List.of("rocksDbTuning.softPendingCompactionBytesLimit"), softAboveHard.fields());

    assertEquals(0, d.withPendingCompactionLimits(8 * RocksDbTuning.GIB, 0).hardPendingCompactionBytesLimit(), "hard off");
    assertEquals(0, d.withPendingCompactionLimits(0, 0).softPendingCompactionBytesLimit(), "both off");
    assertEquals(4, d.withLevel0WriteTriggers(4, 4).level0StopWritesTrigger(), "stop at the slowdown trigger");
  }

  @Test
  void theWriteStallTriggersReachEveryStore() throws Exception {
    RocksDbTuning tuning = RocksDbTuning.defaults().withLevel0WriteTriggers(8, 12)
        .withPendingCompactionLimits(2 * RocksDbTuning.GIB, 3 * RocksDbTuning.GIB);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("logs")
        .withSettings(CommitlaneSettings.defaults().withRocksDbTuning(tuning)))) {
      for (Store s : List.of(db.defaultStore(), db.store("logs"), db.store("created-later"))) {
        var options = db.shared().rocks().getOptions(s.handle());
        assertEquals(8, options.level0SlowdownWritesTrigger(), s.name());
        assertEquals(12, options.level0StopWritesTrigger(), s.name());
        assertEquals(2 * RocksDbTuning.GIB, options.softPendingCompactionBytesLimit(), s.name());
        assertEquals(3 * RocksDbTuning.GIB, options.hardPendingCompactionBytesLimit(), s.name());
      }
    }
  }

  @Test
  void aWriteBufferManagerNeedsTheSharedCache() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> RocksDbTuning.defaults().withSharedMemory(0, 64 * RocksDbTuning.MIB));
    assertEquals(List.of("rocksDbTuning.writeBufferManagerSize"), e.fields());
    assertEquals(0, RocksDbTuning.defaults().withSharedMemory(0, 0).blockCacheSize());
  }

  @Test
  void eachStoreIsWrittenWithItsCompression() {
    RocksDbTuning tuning = RocksDbTuning.defaults().withCompression(Compression.ZSTD).withStoreCompression(Store.DEFAULT, Compression.NONE)
        .withStoreCompression("logs", Compression.LZ4);
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("logs", "events")
        .withSettings(CommitlaneSettings.defaults().withRocksDbTuning(tuning)))) {
      for (Store s : List.of(db.defaultStore(), db.store("logs"), db.store("events"))) {
        for (int i = 0; i < 2000; i++) {
          db.put(s, of("key-" + i), of("a value that compresses well, ".repeat(8)));
        }
      }
      db.flush();
      // RocksDB 11 names the compression manager and the hex ids of the compression types the file used.
      assertEquals(Set.of(";;"), compressions(db, db.defaultStore()));
      assertEquals(Set.of("BuiltinV2;04;"), compressions(db, db.store("logs")), "lz4 is type 0x04");
      assertEquals(Set.of("BuiltinV2;07;"), compressions(db, db.store("events")), "zstd is type 0x07");
    }
  }

  private static Set<String> compressions(Database db, Store store) {
    try {
      Set<String> names = new TreeSet<>();
      for (TableProperties p : db.shared().rocks().getPropertiesOfAllTables(store.handle()).values()) {
        names.add(p.getCompressionName());
      }
      return names;
    } catch (org.rocksdb.RocksDBException e) {
      throw new AssertionError(e);
    }
  }
}
