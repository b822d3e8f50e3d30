package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.RocksDBException;

/**
 * RocksDB write stalls forced without timing luck: background work paused (no flush, no
 * compaction), so the memtable limit, the level-0 triggers and the pending-compaction limits are
 * reached by counting writes and flushes. Writes wait while stopped and finish once the pause ends;
 * the stats say so while it lasts.
 */
class WriteStallTest {
  private static final long KIB = 1024;

  @TempDir
  Path dir;

  /** Where writes that RocksDB stops wait (a test thread, never the JUnit one). */
  private final ExecutorService writers = Executors.newCachedThreadPool();

  @AfterEach
  void stopWriters() {
    writers.shutdownNow();
  }

  private static byte[] key(int i) {
    return ("k" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Incompressible, so that data files are as large as what was written. */
  private static byte[] value(int i, long bytes) {
    byte[] v = new byte[(int) bytes];
    new Random(i).nextBytes(v);
    return v;
  }

  private Database open(RocksDbTuning tuning) {
    return Database.open(dir, DatabaseOptions.defaults().withSettings(CommitlaneSettings.defaults().withRocksDbTuning(tuning)));
  }

  /** Polls observable state; fails after 30 s rather than hang. */
  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("not within 30 s: " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private static void autoCompactions(Database db, boolean on) throws RocksDBException {
    db.shared().rocks().setOptions(db.defaultStore().handle(),
        MutableColumnFamilyOptions.builder().setDisableAutoCompactions(!on).build());
  }

  @Test
  void pausedFlushesSlowWritesThenStopThemUntilThePauseEnds() throws Exception {
    // 64 KiB memtables, 4 of them: RocksDB slows writes with 3 waiting for their flush, stops them with 4.
    try (Database db = open(RocksDbTuning.defaults().withWriteBuffers(64 * KIB, 4))) {
      Database.Registration pause = db.pauseBackgroundWork();
      // A value larger than a memtable fills it: the next write switches it, and it waits for a flush.
      long big = 80 * KIB;
      for (int i = 0; i < 3; i++) {
        db.put(key(i), value(i, big));
      }
      RocksDbStats before = db.rocksDbStats();
      assertEquals(0, before.delayedWriteRate(), before::toString);
      assertEquals(0, before.stallMicros(), before::toString);

      db.put(key(3), value(3, big)); // switches the third memtable: slowed, and larger than the first millisecond's allowance
      RocksDbStats slowed = db.rocksDbStats();
      assertTrue(slowed.delayedWriteRate() > 0, "slowed while 3 memtables wait: " + slowed);
      assertTrue(slowed.stallMicros() > 0, "the delayed write's wait is counted: " + slowed);
      assertFalse(slowed.writeStopped(), slowed::toString);

      CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> db.put(key(4), value(4, big)), writers);
      await(() -> db.rocksDbStats().writeStopped(), "RocksDB stops writes with 4 memtables waiting");
      RocksDbStats stop = db.rocksDbStats();
      assertEquals(0, stop.delayedWriteRate(), "stopped, not slowed: " + stop);
      assertFalse(stopped.isDone(), "nothing flushes while paused, so the write waits");
      assertTrue(db.get(key(0)) != null, "reads go on during the stall");

      pause.close();
      stopped.get(30, TimeUnit.SECONDS);
      await(() -> {
        RocksDbStats s = db.rocksDbStats();
        return !s.writeStopped() && s.delayedWriteRate() == 0;
      }, "the flushes end the stall");
      assertTrue(db.rocksDbStats().stallMicros() >= slowed.stallMicros());
      for (int i = 0; i < 5; i++) {
        assertArrayEquals(value(i, big), db.get(key(i)));
      }
    }
  }

  @Test
  void levelZeroFilesPastTheTriggersSlowThenStopWrites() throws Exception {
    RocksDbTuning tuning = RocksDbTuning.defaults().withLevel0WriteTriggers(4, 6);
    try (Database db = open(tuning)) {
      assertEquals(6, db.shared().rocks().level0StopWriteTrigger(db.defaultStore().handle()));
      autoCompactions(db, false); // RocksDB ignores the level-0 triggers without automatic compactions
      for (int i = 0; i < 4; i++) {
        db.put(key(i), value(i, KIB));
        db.flush(); // one level-0 file each
      }
      Database.Registration pause = db.pauseBackgroundWork();
      autoCompactions(db, true); // 4 files: at the slowdown trigger, and no compaction can start
      RocksDbStats slowed = db.rocksDbStats();
      assertTrue(slowed.delayedWriteRate() > 0, "slowed at 4 level-0 files: " + slowed);
      assertFalse(slowed.writeStopped(), slowed::toString);
      pause.close();
      await(() -> db.rocksDbStats().delayedWriteRate() == 0, "a compaction empties level 0");

      autoCompactions(db, false);
      for (int i = 4; i < 10; i++) {
        db.put(key(i), value(i, KIB));
        db.flush();
      }
      pause = db.pauseBackgroundWork();
      autoCompactions(db, true); // 6 files: at the stop trigger
      assertTrue(db.rocksDbStats().writeStopped(), () -> "stopped at 6 level-0 files: " + db.rocksDbStats());
      CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> db.put(key(10), value(10, KIB)), writers);
      assertFalse(stopped.isDone());
      pause.close();
      stopped.get(30, TimeUnit.SECONDS);
      assertFalse(db.rocksDbStats().writeStopped());
      for (int i = 0; i <= 10; i++) {
        assertArrayEquals(value(i, KIB), db.get(key(i)));
      }
    }
  }

  @Test
  void pendingCompactionBytesPastTheHardLimitStopWrites() throws Exception {
    RocksDbTuning tuning = RocksDbTuning.defaults().withPendingCompactionLimits(RocksDbTuning.MIB, 2 * RocksDbTuning.MIB);
    try (Database db = open(tuning)) {
      autoCompactions(db, false);
      for (int i = 0; i < 4; i++) { // 4 files, RocksDB's level-0 compaction trigger: their 3 MiB are pending
        db.put(key(i), value(i, 768 * KIB));
        db.flush();
      }
      Database.Registration pause = db.pauseBackgroundWork();
      autoCompactions(db, true);
      RocksDbStats stop = db.rocksDbStats();
      assertTrue(stop.pendingCompactionBytes() >= 2 * RocksDbTuning.MIB, stop::toString);
      assertTrue(stop.writeStopped(), "stopped past the hard limit: " + stop);
      CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> db.put(key(4), value(4, KIB)), writers);
      assertFalse(stopped.isDone());
      pause.close();
      stopped.get(30, TimeUnit.SECONDS);
      await(() -> !db.rocksDbStats().writeStopped(), "the compaction brings the pending bytes under the limit");
      assertArrayEquals(value(4, KIB), db.get(key(4)));
    }
  }

  @Test
  void closingTheHandleEndsItsPauseSoThatAStoppedWriteFinishes() throws Exception {
    Database db = open(RocksDbTuning.defaults().withWriteBuffers(64 * KIB, 2));
    db.pauseBackgroundWork(); // never ended by the test
    db.put(key(0), value(0, 80 * KIB));
    db.put(key(1), value(1, 80 * KIB));
    CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> db.put(key(2), value(2, 80 * KIB)), writers);
    await(() -> db.rocksDbStats().writeStopped(), "stopped with 2 memtables waiting");
    db.close(); // ends the pause, waits for the stopped write, then flushes and closes
    stopped.get(30, TimeUnit.SECONDS);
    try (Database again = Database.open(dir)) {
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(value(i, 80 * KIB), again.get(key(i)));
      }
    }
  }

  @Test
  void aPauseEndsWithItsHandleAndEndingItLaterDoesNothing() {
    DatabaseOptions walOff = DatabaseOptions.defaults().withWal(false);
    Database first = Database.open(dir, walOff);
    Database second = Database.open(dir, walOff);
    Database.Registration pause = second.pauseBackgroundWork();
    second.close(); // ends its pause: the first handle's writes are not held by it
    pause.close(); // already ended: nothing happens
    Database.Registration last = first.pauseBackgroundWork();
    first.put(key(0), value(0, KIB));
    first.close(); // the last handle ends its pause, then flushes (the WAL is off) and closes RocksDB
    last.close(); // after the native close: touches nothing
    try (Database again = Database.open(dir, walOff)) {
      assertArrayEquals(value(0, KIB), again.get(key(0)));
    }
  }
}
