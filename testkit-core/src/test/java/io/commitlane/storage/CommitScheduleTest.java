package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.LogRecordRef;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Schedules forced through the stage listener: no sleeps, no timing. Storage's tests that hold
 * commits with the testkit live in this module (storage cannot depend on it: Maven refuses the cycle).
 */
class CommitScheduleTest {
  private static final Duration T = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy)));
  }

  /**
   * A is held between validation and write; a plain write W of the same key must wait for A's
   * locks instead of landing in that window, where A's write would overwrite it unseen.
   */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void plainWriteCannotLandBetweenValidationAndWrite(OccValidation policy) throws Exception {
    try (Database db = open(policy)) {
      db.put(of("k"), of("initial"));
      StageControl control = StageControl.install(db);
      Barrier barrier = control.barrier(CommitStage.VALIDATED, "A");
      Thread a = start(() -> {
        Transaction t = db.begin().tag("A");
        t.get(of("k"));
        t.put(of("k"), of("A"));
        t.commitSync();
      });
      barrier.awaitArrival(T);
      Thread w = start(() -> db.put(of("k"), of("W")));
      awaitParked(w);
      assertEquals("initial", str(db.get(of("k"))), "W must not land while A holds its locks");
      barrier.release();
      a.join();
      w.join();
      assertEquals("W", str(db.get(of("k"))), "W came after A's write, so it is the value");
    }
  }

  /** A plain write after a transaction's snapshot is a conflict for it, never overwritten unseen. */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void plainWriteAfterSnapshotConflicts(OccValidation policy) {
    try (Database db = open(policy)) {
      Transaction t = db.begin();
      assertNull(t.get(of("k")));
      db.put(of("k"), of("W"));
      t.put(of("k"), of("T"));
      assertThrows(ConflictException.class, t::commitSync);
      assertEquals("W", str(db.get(of("k"))));
    }
  }

  @Test
  void stagesComeInOrderAndHooksSeeTheCommit() {
    try (Database db = open(OccValidation.PARALLEL)) {
      List<String> seen = new ArrayList<>();
      db.addStageListener((stage, c) -> seen.add(stage + ":" + c.tag()));
      db.addCommitHook(new CommitHook() {
        @Override
        public void beforeWrite(PendingCommit c) {
          seen.add("before:" + c.writeCount());
          c.attach(new LogRecordRef("a", 1, 2));
        }

        @Override
        public void afterWrite(PendingCommit c) {
          seen.add("after:" + (c.version() > 0));
        }
      });
      CommitResult r = db.begin().tag("T").put(of("k"), of("v")).commitSync();
      assertEquals(List.of("VALIDATED:T", "before:1", "LOG_APPENDED:T", "WRITTEN:T", "after:true", "FINISHED:T"), seen);
      assertEquals(1, r.logRecord().position());
      seen.clear();
      db.put(of("k"), of("w"));
      assertEquals(List.of(), seen, "plain writes are not logged and pass no stages");
    }
  }

  @Test
  void hookFailureWritesNothingAndUnwindsEarlierHooks() {
    try (Database db = open(OccValidation.PARALLEL)) {
      List<String> aborted = new ArrayList<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void aborted(PendingCommit c, Throwable cause) {
          aborted.add("first:" + cause.getMessage());
        }
      });
      db.addCommitHook(new CommitHook() {
        @Override
        public void beforeWrite(PendingCommit c) {
          throw new IllegalStateException("log full");
        }

        @Override
        public void aborted(PendingCommit c, Throwable cause) {
          aborted.add("second");
        }
      });
      Transaction t = db.begin().put(of("k"), of("v"));
      assertThrows(IllegalStateException.class, t::commitSync);
      assertNull(db.get(of("k")));
      assertEquals(List.of("first:log full"), aborted, "only hooks whose beforeWrite ran are unwound");
      assertEquals(1, db.stats().failures());
      // The locks were released: the same key commits afterwards.
      db.put(of("k"), of("w"));
    }
  }

  @Test
  void failureInjectedBeforeWriteAbortsAndAfterWriteIsALostAck() {
    try (Database db = open(OccValidation.PARALLEL)) {
      List<String> hook = new CopyOnWriteArrayList<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void afterWrite(PendingCommit c) {
          hook.add("after");
        }

        @Override
        public void aborted(PendingCommit c, Throwable cause) {
          hook.add("aborted");
        }
      });
      AtomicReference<CommitStage> failAt = new AtomicReference<>(CommitStage.LOG_APPENDED);
      db.addStageListener((stage, c) -> {
        if (stage == failAt.get()) {
          throw new IllegalStateException("injected at " + stage);
        }
      });
      assertThrows(IllegalStateException.class, () -> db.begin().put(of("a"), of("1")).commitSync());
      assertNull(db.get(of("a")));
      assertEquals(List.of("aborted"), hook);

      hook.clear();
      failAt.set(CommitStage.WRITTEN);
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> db.begin().put(of("b"), of("1")).commitSync());
      assertTrue(e.getMessage().contains("WRITTEN"));
      assertEquals("1", str(db.get(of("b"))), "after WRITTEN the data is written");
      assertEquals(List.of("after"), hook, "the hook's after-write step still runs");
    }
  }

  private static Thread start(Runnable r) {
    Thread t = new Thread(r);
    t.setUncaughtExceptionHandler((th, e) -> e.printStackTrace());
    t.start();
    return t;
  }

  /** Wait until the thread parks (waits for a lock); a state the schedule forces, not a timing guess. */
  private static void awaitParked(Thread t) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.BLOCKED) {
      assertTrue(t.isAlive(), "the thread finished instead of waiting");
      assertTrue(System.nanoTime() < deadline, "the thread never waited");
      Thread.onSpinWait();
    }
  }
}
