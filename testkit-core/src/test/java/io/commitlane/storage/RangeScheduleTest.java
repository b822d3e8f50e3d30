package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The windows phantom protection must close, forced with stage barriers (no sleeps): a committer
 * inserting into a range cannot slip between a scanner's validation and its write, a scanner that
 * validates while an insert into its range is in flight conflicts, and turning the ordered record
 * on waits for commits that did not publish.
 */
class RangeScheduleTest {
  private static final Duration T = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy)));
  }

  /** S passed validation and is held before its write; W's insert into S's range must wait for S's version. */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void anInsertCannotLandBetweenAScannersValidationAndItsWrite(OccValidation policy) throws Exception {
    try (Database db = open(policy); StageControl control = StageControl.install(db)) {
      db.put(of("a/1"), of("v"));
      Barrier held = control.barrier(CommitStage.VALIDATED, "S");
      Transaction s = db.begin().tag("S");
      assertEquals(1, s.count(KeyRange.prefix(of("a/"))));
      s.put(of("a/count"), of("1"));
      Future<CommitResult> scanner = threads.submit(s::commitSync);
      held.awaitArrival(T);

      AtomicReference<Thread> writerThread = new AtomicReference<>();
      Future<CommitResult> writer = threads.submit(() -> {
        writerThread.set(Thread.currentThread());
        return db.begin().tag("W").put(of("a/2"), of("v")).commitSync();
      });
      awaitParked(writerThread, writer);
      assertNull(db.get(of("a/2")), "W must wait while S holds its fence");
      held.release();
      long sVersion = scanner.get(30, TimeUnit.SECONDS).version();
      long wVersion = writer.get(30, TimeUnit.SECONDS).version();
      assertTrue(wVersion > sVersion, "W is ordered after S: " + wVersion + " > " + sVersion);
      assertEquals(3, db.count(KeyRange.prefix(of("a/"))), "a/1, a/2 and a/count");
    }
  }

  /** Writes outside the fenced interval are not held up by it. */
  @ParameterizedTest
  @EnumSource(value = OccValidation.class, names = "PARALLEL")
  void aFenceHoldsNothingOutsideItsInterval(OccValidation policy) throws Exception {
    try (Database db = open(policy); StageControl control = StageControl.install(db)) {
      Barrier held = control.barrier(CommitStage.VALIDATED, "S");
      Transaction s = db.begin().tag("S");
      s.list(KeyRange.prefix(of("a/")));
      s.put(of("a/x"), of("1"));
      Future<CommitResult> scanner = threads.submit(s::commitSync);
      held.awaitArrival(T);
      db.begin().put(of("b/1"), of("v")).commitSync();
      db.put(of("a"), of("just below the range"));
      assertEquals("v", str(db.get(of("b/1"))));
      held.release();
      scanner.get(30, TimeUnit.SECONDS);
    }
  }

  /** W published its insert and is held before its write; S, validating now, must conflict. */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void aScannerValidatingWhileAnInsertIntoItsRangeIsInFlightConflicts(OccValidation policy) throws Exception {
    try (Database db = open(policy); StageControl control = StageControl.install(db)) {
      Transaction s = db.begin().tag("S");
      assertEquals(0, s.count(KeyRange.prefix(of("a/"))));
      s.put(of("summary"), of("0"));

      Barrier held = control.barrier(CommitStage.VALIDATED, "W");
      Future<CommitResult> writer = threads.submit(() -> db.begin().tag("W").put(of("a/1"), of("v")).commitSync());
      held.awaitArrival(T);

      AtomicReference<Thread> scannerThread = new AtomicReference<>();
      CompletableFuture<Throwable> scanner = CompletableFuture.supplyAsync(() -> {
        scannerThread.set(Thread.currentThread());
        try {
          s.commitSync();
          return null;
        } catch (RuntimeException e) {
          return e;
        }
      }, threads);
      if (policy == OccValidation.SERIAL) {
        awaitParked(scannerThread, scanner); // the commit lock: S validates after W's write
      } else {
        assertInstanceOf(ConflictException.class, scanner.get(30, TimeUnit.SECONDS), "W's pending insert");
      }
      held.release();
      writer.get(30, TimeUnit.SECONDS);
      assertInstanceOf(ConflictException.class, scanner.get(30, TimeUnit.SECONDS));
      assertNull(db.get(of("summary")));
    }
  }

  /**
   * W read the record off and is held under its locks; a transaction's first tracked scan turns
   * the record on and must wait until W is done, so its baseline and snapshot include W.
   */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void turningTheRecordOnWaitsForCommitsThatDidNotPublish(OccValidation policy) throws Exception {
    try (Database db = open(policy); StageControl control = StageControl.install(db)) {
      Barrier held = control.barrier(CommitStage.VALIDATED, "W");
      Future<CommitResult> writer = threads.submit(() -> db.begin().tag("W").put(of("a/1"), of("v")).commitSync());
      held.awaitArrival(T);

      AtomicReference<Thread> scannerThread = new AtomicReference<>();
      CompletableFuture<Long> scanned = CompletableFuture.supplyAsync(() -> {
        scannerThread.set(Thread.currentThread());
        try (Transaction s = db.begin()) {
          long n = s.count(KeyRange.prefix(of("a/")));
          s.put(of("summary"), of(Long.toString(n)));
          s.commitSync();
          return n;
        }
      }, threads);
      awaitParked(scannerThread, scanned);
      assertFalse(scanned.isDone());
      held.release();
      writer.get(30, TimeUnit.SECONDS);
      assertEquals(1, scanned.get(30, TimeUnit.SECONDS), "the scan ran after W and saw it");
      assertEquals(0, db.stats().conflicts());
    }
  }

  /** Wait until the thread blocks (a lock, a fence); a state the schedule forces, not a timing guess. */
  private static void awaitParked(AtomicReference<Thread> ref, Future<?> task) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Thread t = ref.get();
      if (t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.BLOCKED)) {
        return;
      }
      assertFalse(task.isDone(), "the task finished instead of waiting");
      assertTrue(System.nanoTime() < deadline, "the task never waited");
      Thread.onSpinWait();
    }
  }
}
