package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RocksDB WAL options: validated at construction and at open, applied, and the group syncer. */
class RocksDbWalTest {
  @TempDir Path dir;

  private static DatabaseOptions with(RocksDbWal wal) {
    return DatabaseOptions.defaults().withSettings(CommitlaneSettings.defaults().withRocksDbWal(wal));
  }

  @Test
  void incompatibleCombinationsAreNamedBeforeAnythingOpens() {
    InvalidSettingsException both = assertThrows(InvalidSettingsException.class,
        () -> new RocksDbWal(false, Duration.ZERO, false, true, true, false));
    assertEquals(List.of("rocksDbWal.unorderedWrite"), both.fields());
    assertTrue(both.getMessage().contains("pipelined-write"), both.getMessage());
    assertEquals(List.of("rocksDbWal.syncInterval"), assertThrows(InvalidSettingsException.class,
        () -> new RocksDbWal(true, Duration.ofSeconds(61), false, false, false, false)).fields());
    // Every option needs the WAL: with it off, asking for one is an error, not a silent no-op.
    InvalidSettingsException walOff = assertThrows(InvalidSettingsException.class, () -> Database.open(dir,
        with(new RocksDbWal(true, Duration.ofMillis(5), false, false, false, false)).withWal(false)));
    assertEquals(List.of("rocksDbWal"), walOff.fields());
    assertTrue(walOff.getMessage().contains("needs the WAL on"), walOff.getMessage());
    assertTrue(!Database.isOpen(dir));
  }

  @Test
  void eachRocksDbOptionOpensAndKeepsReadYourOwnWrites() {
    List<RocksDbWal> variants = List.of(
        new RocksDbWal(false, Duration.ZERO, false, true, false, false),   // unordered write
        new RocksDbWal(false, Duration.ZERO, false, false, true, false),   // pipelined write (atomic flush off)
        new RocksDbWal(false, Duration.ZERO, false, false, false, true),   // two write queues
        new RocksDbWal(true, Duration.ofMillis(20), false, true, false, true));
    int i = 0;
    for (RocksDbWal wal : variants) {
      Path p = dir.resolve("v" + i++);
      try (Database db = Database.open(p, with(wal))) {
        Transaction t = db.begin();
        t.put(of("k"), of("v" + i));
        t.commitSync();
        assertEquals("v" + i, str(db.get(of("k"))), wal.toString());
      }
      try (Database again = Database.open(p, with(wal))) {
        assertEquals("v" + i, str(again.get(of("k"))), "a clean close keeps it: " + wal);
      }
    }
  }

  @Test
  void ackAfterSyncMakesEveryCommitWaitForAGroupSyncThatConcurrentCommitsShare() throws Exception {
    RocksDbWal wal = new RocksDbWal(true, Duration.ZERO, true, false, false, false);
    int threads = 4;
    int perThread = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Database db = Database.open(dir, with(wal))) {
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perThread; i++) {
            long before = db.walSyncs();
            Transaction txn = db.begin();
            txn.put(of(id + ":" + i), of("x"));
            txn.commitSync();
            // No periodic syncs: only a sync requested after this write can have completed it.
            assertTrue(db.walSyncs() > before, "commit returned before a group sync");
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      long syncs = db.walSyncs();
      assertTrue(syncs >= 1 && syncs <= (long) threads * perThread, "syncs " + syncs);
      long before = db.walSyncs();
      db.syncWal().get();
      assertEquals(before + 1, db.walSyncs(), "an on-demand sync");
    } finally {
      pool.shutdownNow();
    }
  }
}
