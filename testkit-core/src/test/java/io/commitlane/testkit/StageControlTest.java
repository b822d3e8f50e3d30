package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StageControlTest {
  private static final Duration T = Duration.ofSeconds(20);

  @TempDir
  Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy)));
  }

  private static CompletableFuture<CommitResult> commit(Database db, String tag, String key, String value) {
    return CommitThread.start("commit-" + tag, () -> db.begin().tag(tag).put(b(key), b(value)).commitSync());
  }

  @Test
  void barrierHoldsACommitUntilReleased() throws Exception {
    try (Database db = open(OccValidation.PARALLEL); StageControl control = StageControl.install(db)) {
      Barrier b = control.barrier(CommitStage.LOG_APPENDED, "A");
      CompletableFuture<CommitResult> a = commit(db, "A", "k", "v");
      assertEquals("A", b.awaitArrival(T).tag());
      assertEquals(1, b.holding());
      assertFalse(a.isDone(), "held at LOG_APPENDED, so not committed");
      assertNull(db.get(b("k")), "nothing written before the barrier is released");
      b.release();
      a.get(20, TimeUnit.SECONDS);
      assertEquals("v", s(db.get(b("k"))));
      assertEquals(0, b.holding());
    }
  }

  @Test
  void injectedFailureSurfacesAsThatErrorAtThatStage() throws Exception {
    try (Database db = open(OccValidation.PARALLEL); StageControl control = StageControl.install(db)) {
      StageControl.Rule rule = control.fail(CommitStage.VALIDATED, StageControl.tagged("A"), 1,
          () -> new IllegalStateException("injected disk full"));
      ExecutionException e = assertThrows(ExecutionException.class, () -> commit(db, "A", "k", "v").get(20, TimeUnit.SECONDS));
      assertInstanceOf(IllegalStateException.class, e.getCause());
      assertEquals("injected disk full", e.getCause().getMessage());
      assertNull(db.get(b("k")));
      assertEquals(1, rule.applied());
      // Only once: the next commit of A goes through.
      commit(db, "A", "k", "w").get(20, TimeUnit.SECONDS);
      assertEquals("w", s(db.get(b("k"))));
    }
  }

  @Test
  void delayKeepsTheCommitInTheStageAtLeastThatLong() throws Exception {
    try (Database db = open(OccValidation.PARALLEL); StageControl control = StageControl.install(db)) {
      StageControl.Rule rule = control.delay(CommitStage.WRITTEN, StageControl.any(), Duration.ofMillis(50));
      long start = System.nanoTime();
      db.begin().put(b("k"), b("v")).commitSync();
      assertTrue(System.nanoTime() - start >= Duration.ofMillis(50).toNanos());
      assertEquals(1, rule.applied());
      rule.disable();
      db.begin().put(b("k"), b("w")).commitSync();
      assertEquals(1, rule.applied());
    }
  }

  /** Out-of-order completion: B, dispatched after A, finishes first because the schedule says so. */
  @Test
  void scheduleForcesOutOfOrderCompletion() throws Exception {
    try (Database db = open(OccValidation.PARALLEL); StageControl control = StageControl.install(db)) {
      StageSchedule schedule = control.schedule(T, "A", "B");
      CompletableFuture<CommitResult> a = commit(db, "A", "a", "1");
      CompletableFuture<CommitResult> bb = commit(db, "B", "b", "2");
      schedule.letReach("A", CommitStage.WRITTEN)
          .letReach("B", CommitStage.FINISHED);
      assertEquals(CommitStage.WRITTEN, schedule.position("A"));
      schedule.letFinish("B").letFinish("A");
      a.get(20, TimeUnit.SECONDS);
      bb.get(20, TimeUnit.SECONDS);
      assertEquals(List.of("B", "A"), control.trace().order(CommitStage.FINISHED));
      assertEquals(List.of("A", "B"), control.trace().order(CommitStage.WRITTEN));
    }
  }

  /** The worked example: two read-modify-writes of one key, forced to overlap: one must conflict. */
  @ParameterizedTest
  @EnumSource(OccValidation.class)
  void noLostUpdateUnderAForcedOverlap(OccValidation policy) throws Exception {
    try (Database db = open(policy); StageControl control = StageControl.install(db)) {
      db.put(b("n"), b("0"));
      StageSchedule schedule = control.schedule(T, "A", "B");
      Transaction ta = db.begin().tag("A");
      Transaction tb = db.begin().tag("B");
      int seenA = Integer.parseInt(s(ta.get(b("n"))));
      int seenB = Integer.parseInt(s(tb.get(b("n"))));
      ta.put(b("n"), b(Integer.toString(seenA + 1)));
      tb.put(b("n"), b(Integer.toString(seenB + 1)));
      CompletableFuture<CommitResult> a = CommitThread.start("A", ta::commitSync);
      schedule.letFinish("A");
      a.get(20, TimeUnit.SECONDS);
      CompletableFuture<CommitResult> bf = CommitThread.start("B", tb::commitSync);
      schedule.release("B");
      ExecutionException e = assertThrows(ExecutionException.class, () -> bf.get(20, TimeUnit.SECONDS));
      assertInstanceOf(ConflictException.class, e.getCause());
      assertEquals("1", s(db.get(b("n"))));
    }
  }

  @Test
  void aStepThatCannotHappenSaysWhoWasWhere() throws Exception {
    try (Database db = open(OccValidation.PARALLEL); StageControl control = StageControl.install(db)) {
      StageSchedule schedule = control.schedule(Duration.ofMillis(200), "A", "C");
      CompletableFuture<CommitResult> a = commit(db, "A", "a", "1");
      schedule.letReach("A", CommitStage.WRITTEN);
      StageTimeoutException e = assertThrows(StageTimeoutException.class, () -> schedule.letReach("C", CommitStage.VALIDATED));
      assertTrue(e.getMessage().contains("step 2 (let C reach VALIDATED)"), e.getMessage());
      assertTrue(e.getMessage().contains("A is held at WRITTEN"), e.getMessage());
      assertTrue(e.getMessage().contains("C has not reached any stage"), e.getMessage());
      schedule.letFinish("A");
      a.get(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void closingTheControlReleasesEverythingItHolds() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      StageControl control = StageControl.install(db);
      Barrier b = control.barrier(CommitStage.VALIDATED, "A");
      control.schedule(T, "B");
      CompletableFuture<CommitResult> a = commit(db, "A", "a", "1");
      CompletableFuture<CommitResult> bb = commit(db, "B", "b", "1");
      b.awaitArrival(T);
      control.close();
      a.get(20, TimeUnit.SECONDS);
      bb.get(20, TimeUnit.SECONDS);
      assertEquals("1", s(db.get(b("b"))));
    }
  }
}
