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
        () -> new RocksDbTuning(null, Map.of("__commitlane_own", Compression.LZ4), 1024, 1, 5, 10, 3, 0, 99));
    assertEquals(List.of("rocksDbTuning.compression", "rocksDbTuning.storeCompression.__commitlane_own",
        "rocksDbTuning.writeBufferSize", "rocksDbTuning.maxWriteBuffers", "rocksDbTuning.blockCacheSize",
        "rocksDbTuning.writeBufferManagerSize", "rocksDbTuning.maxOpenFiles", "rocksDbTuning.maxBackgroundJobs",
        "rocksDbTuning.bloomFilterBitsPerKey"), e.fields());
    assertTrue(e.getMessage().contains("rocksDbTuning.writeBufferSize = 1024: must be a size in 64 KiB..4 GiB"), e.getMessage());
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
