package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbStatsTest {
  @TempDir Path dir;

  private static byte[] key(int i) {
    return ("k" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    byte[] v = new byte[1000];
    new java.util.Random(i).nextBytes(v);
    return v;
  }

  @Test
  void reportsMemtablesLiveFilesLevelZeroIndexesTheBlockCacheAndNoStall() {
    Database db = Database.open(dir.resolve("db"));
    try {
      for (int i = 0; i < 100; i++) {
        db.put(key(i), value(i)); // random: compression keeps the size
      }
      RocksDbStats before = db.rocksDbStats();
      assertTrue(before.memtableBytes() > 100_000, before::toString);
      assertEquals(0, before.liveSstBytes(), before::toString);
      assertEquals(0, before.level0Files(), before::toString);
      assertEquals(0, before.tableReadersBytes(), before::toString);

      db.flush();
      for (int i = 0; i < 100; i++) {
        db.get(key(i));
      }
      RocksDbStats after = db.rocksDbStats();
      assertTrue(after.liveSstBytes() > 100_000, after::toString);
      assertEquals(1, after.level0Files(), "one flush of the default store: " + after);
      assertTrue(after.tableReadersBytes() > 0, "the new file's index is held outside the cache: " + after);
      assertTrue(after.blockCacheBytes() > 0, after::toString);
      assertTrue(after.hasStatistics());
      assertTrue(after.blockCacheHits() + after.blockCacheMisses() > 0, after::toString);
      assertTrue(after.blockCacheHitRate() >= 0 && after.blockCacheHitRate() <= 1, after::toString);
      assertEquals(0, after.stallMicros(), "nothing stalled");
      assertFalse(after.writeStopped());
      assertEquals(0, after.delayedWriteRate());
      assertTrue(after.runningCompactions() >= 0 && after.runningFlushes() >= 0);
      assertTrue(after.pendingCompactionBytes() >= 0);
      assertEquals(DatabaseHealth.State.OK, db.stats().health().state());
    } finally {
      db.close();
    }
    assertEquals(RocksDbStats.UNKNOWN, db.rocksDbStats(), "closed");
    assertEquals(DatabaseHealth.State.OK, db.health().state(), "closed: the last known health");
  }

  @Test
  void levelZeroCountsEveryLiveStore() throws Exception {
    try (Database db = Database.open(dir.resolve("db"), DatabaseOptions.defaults().withWal(false).withStores("other"))) {
      db.put(key(1), value(1));
      db.put(db.store("other"), key(2), value(2));
      db.flush();
      assertEquals(2, db.rocksDbStats().level0Files(), "a file in each store");
      db.dropStore("other").toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(1, db.rocksDbStats().level0Files(), "a dropped store no longer counts");
    }
  }
}
