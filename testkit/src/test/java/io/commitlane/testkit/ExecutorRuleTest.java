package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.pekko.CommitlaneTest;
import io.commitlane.testkit.pekko.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A commit held after ADMITTED occupies a commit executor. When the test's holds occupy every
 * executor, waiting for a queued commit fails at once with a message naming commit-threads, instead
 * of timing out; with an executor to spare the same steps pass. The waits here are long on purpose:
 * a wait that did not fail fast would end in a {@link StageTimeoutException}, not the asserted type.
 */
@CommitlaneTest(commitThreads = 1)
@ExtendWith(LogCapturingExtension.class)
class ExecutorRuleTest {
  private static final Duration LONG = Duration.ofSeconds(60);

  private static CompletableFuture<CommitResult> commit(TestDatabase db, String tag) {
    Transaction t = db.database().begin().tag(tag);
    t.put(tag.getBytes(StandardCharsets.UTF_8), tag.getBytes(StandardCharsets.UTF_8));
    return db.database().commit(t).toCompletableFuture();
  }

  @Test
  void aScheduleStepForAQueuedCommitFailsAtOnceWhenTheOnlyExecutorIsHeld(TestDatabase db) {
    StageSchedule s = db.control().schedule(LONG, "A", "B");
    commit(db, "A");
    s.letReach("A", CommitStage.WRITTEN); // A holds the only executor
    commit(db, "B");                      // B is admitted and queued behind it
    NoFreeExecutorException e = assertThrows(NoFreeExecutorException.class, () -> s.letReach("B", CommitStage.VALIDATED));
    assertEquals("step 2 (let B reach VALIDATED): B (admitted, queued) needs a commit executor, but all 1"
        + " (commit-threads = 1) are held: A is held at WRITTEN by a schedule. It cannot move until one of them is"
        + " released. Release a held commit first, or give the database more executors: commit-threads = 2 in its"
        + " settings, or @CommitlaneTest(commitThreads = 2) on the test. Steps so far: [let A reach WRITTEN, let B reach VALIDATED]",
        e.getMessage());
  }

  @Test
  void aBarrierWaitForAQueuedCommitFailsAtOnceWhenTheOnlyExecutorIsHeld(TestDatabase db) {
    Barrier atDequeue = db.control().barrier(CommitStage.DEQUEUED, "A");
    Barrier bValidated = db.control().barrier(CommitStage.VALIDATED, "B");
    commit(db, "A");
    atDequeue.awaitArrival(LONG);
    commit(db, "B");
    NoFreeExecutorException e = assertThrows(NoFreeExecutorException.class, () -> bValidated.awaitArrival(LONG));
    assertTrue(e.getMessage().contains("is held at DEQUEUED by barrier at DEQUEUED for tag A"), e.getMessage());
    assertTrue(e.getMessage().contains("commit-threads = 2"), e.getMessage());
  }

  /** A test that waits on a probe instead sees why in its captured log. */
  @Test
  void aCommitAdmittedWhileEveryExecutorIsHeldIsLoggedAtWarn(TestDatabase db, ActorTestKit kit) {
    Barrier atDequeue = db.control().barrier(CommitStage.DEQUEUED, "A");
    commit(db, "A");
    atDequeue.awaitArrival(LONG);
    LoggingTestKit.warn("was admitted while no commit executor is free").expect(kit.system(), () -> commit(db, "B"));
  }

  /** Queueing behind a hold is allowed: released first, the queued commit runs (the ordered lane). */
  @Test
  void aCommitQueuedBehindAHoldRunsOnceTheHoldIsReleased(TestDatabase db) throws Exception {
    Barrier atDequeue = db.control().barrier(CommitStage.DEQUEUED, "A");
    Barrier bValidated = db.control().barrier(CommitStage.VALIDATED, "B");
    bValidated.release(); // only observed
    CompletableFuture<CommitResult> a = commit(db, "A");
    atDequeue.awaitArrival(LONG);
    CompletableFuture<CommitResult> b = commit(db, "B");
    assertFalse(b.isDone(), "B waits for the only executor");
    atDequeue.release();
    bValidated.awaitArrival(LONG);
    a.get(60, TimeUnit.SECONDS);
    b.get(60, TimeUnit.SECONDS);
    assertEquals(List.of("A", "B"), db.control().trace().order(CommitStage.FINISHED), "one executor: dispatch order");
  }

  @Test
  @CommitlaneTest(commitThreads = 2)
  void withAnExecutorToSpareTheQueuedCommitOvertakesTheHeldOne(TestDatabase db) {
    StageSchedule s = db.control().schedule(LONG, "A", "B");
    commit(db, "A");
    s.letReach("A", CommitStage.WRITTEN);
    commit(db, "B");
    s.letFinish("B").letFinish("A");
    assertEquals(List.of("B", "A"), db.control().trace().order(CommitStage.FINISHED));
  }

  @Test
  @CommitlaneTest(commitThreads = 3, config = "commitlane.occ-validation = serial")
  void aMethodAnnotationOverridesTheClassOne(TestDatabase db) {
    assertEquals(3, db.database().settings().commitThreads());
    assertEquals(OccValidation.SERIAL, db.database().settings().storage().occValidation());
  }

  @Test
  void theClassAnnotationSetsTheExecutors(TestDatabase db) {
    assertEquals(1, db.database().settings().commitThreads());
  }
}
