package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.put;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class CommitPipelineTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(int threads) {
    return open(threads, Map.of());
  }

  private CommitlaneDatabase open(int threads, Map<String, Object> more) {
    Map<String, Object> m = new java.util.HashMap<>(more);
    m.put("commit-threads", threads);
    m.put("wal", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  @Test
  void commitsRunOnExecutorsAndCallbacksOnTheCompletionDispatcher() throws Exception {
    try (CommitlaneDatabase db = open(2)) {
      List<String> threads = new CopyOnWriteArrayList<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.WRITTEN) {
          threads.add("commit:" + Thread.currentThread().getName());
        }
      });
      Transaction t = db.begin();
      t.put(b("k"), b("v"));
      CompletionStage<String> callback = db.commit(t)
          .thenApply(r -> Thread.currentThread().getName())
          .thenCompose(name -> CompletableFuture.supplyAsync(() -> name + "|" + Thread.currentThread().getName(),
              testKit.system().dispatchers().lookup(DispatcherSelector.defaultDispatcher())));
      String names = await(callback);
      assertTrue(threads.get(0).startsWith("commit:commitlane-commit-"), threads.toString());
      for (String n : names.split("\\|")) {
        assertFalse(n.startsWith("commitlane-commit-"), "user code ran on a commit thread: " + n);
        assertFalse(n.contains("commonPool"), "user code ran on the common pool: " + n);
      }
      assertEquals("v", s(db.storage().get(b("k"))));
    }
  }

  @Test
  void aCallerWithOneCommitInFlightKeepsOneExecutor() throws Exception {
    try (CommitlaneDatabase db = open(4)) {
      for (int i = 0; i < 200; i++) {
        await(put(db, null, "k" + i, "v"));
      }
      assertEquals(1, db.stats().executorsStarted());
    }
  }

  /**
   * A caller that commits from its callback, one commit in flight, as fast as it can: every
   * commit finds the executor idle (spinning, parked or dormant, also when a drain passes
   * executor-batch and the executor goes through its mailbox), so no second executor starts.
   */
  @Test
  void aCallbackDrivenCallerWithOneCommitInFlightKeepsOneExecutor() throws Exception {
    for (String spin : new String[] {"100 us", "0 us"}) {
      try (CommitlaneDatabase db = open(4, Map.of("executor-spin", spin, "executor-batch", 8))) {
        java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(1);
        for (int i = 0; i < 5_000; i++) {
          inFlight.acquire();
          put(db, null, "k" + (i % 100), "v").whenComplete((r, e) -> inFlight.release());
        }
        inFlight.acquire();
        assertEquals(1, db.stats().executorsStarted(), "executor-spin " + spin);
      }
    }
  }

  /** Without a spin the idle executor parks on its thread at once: each commit claims it with an unpark. */
  @Test
  void aCallerWithOneCommitInFlightKeepsOneExecutorThatParksAtOnce() throws Exception {
    try (CommitlaneDatabase db = open(4, Map.of("executor-spin", "0 us"))) {
      for (int i = 0; i < 200; i++) {
        await(put(db, null, "k" + i, "v"));
      }
      assertEquals(1, db.stats().executorsStarted());
      assertEquals("v", s(db.storage().get(b("k199"))));
    }
  }

  /**
   * Right after open, while the first executor may still be starting: a held commit must not
   * strand the next one (it gets the second executor), and a sequential caller must not get a
   * second executor. Repeated because the start-up interleaving varies; every run must hold.
   */
  @Test
  void growthRightAfterOpenIsNeitherLostNorDoubled() throws Exception {
    for (int round = 0; round < 20; round++) {
      Path d = dir.resolve("r" + round);
      try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(d,
          settings(testKit.system(), Map.of("commit-threads", 2, "wal", "off", "write-groups.enabled", "off")))) {
        // Merging off: a held commit would hold the group it merged into; this test is about executors.
        try (StageControl stages = StageControl.install(db.storage())) {
          Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> "A".equals(c.tag()));
          CompletionStage<CommitResult> a = put(db, "A", "a", "1");
          CompletionStage<CommitResult> b = put(db, "B", "b", "1");
          await(b); // needs the second executor while A holds the first
          hold.release();
          await(a);
        }
      }
      try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("s" + round),
          settings(testKit.system(), Map.of("commit-threads", 4, "wal", "off")))) {
        for (int i = 0; i < 5; i++) {
          await(put(db, null, "k" + i, "v"));
        }
        assertEquals(1, db.stats().executorsStarted(), "round " + round + ": a sequential caller got a second executor");
      }
    }
  }

  @Test
  void executorsNeverExceedCommitThreadsAndGrowOnlyUnderABurst() throws Exception {
    for (int threads : new int[] {1, 4}) {
      Path d = dir.resolve("t" + threads);
      try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(d,
          settings(testKit.system(), Map.of("commit-threads", threads, "wal", "off", "write-groups.enabled", "off")))) {
        // Merging off: one executor would take the whole burst as a group; this test is about growth.
        StageControl stages = StageControl.install(db.storage());
        Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
        List<CompletionStage<CommitResult>> commits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          commits.add(put(db, "c" + i, "k" + i, "v"));
        }
        hold.awaitArrivals(threads, Duration.ofSeconds(30));
        // Every executor is held at VALIDATED; the rest of the burst waits in the queue.
        assertEquals(threads, hold.holding());
        assertEquals(threads, db.stats().executorsStarted());
        assertEquals(8 - threads, db.stats().queueDepth());
        hold.release();
        for (CompletionStage<CommitResult> c : commits) {
          await(c);
        }
        assertEquals(threads, db.stats().executorsStarted());
        stages.close();
      }
    }
  }

  @Test
  void oneExecutorCompletesInDispatchOrder() throws Exception {
    try (CommitlaneDatabase db = open(1)) {
      List<Object> written = new CopyOnWriteArrayList<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.WRITTEN) {
          written.add(c.tag());
        }
      });
      // Replies from one executor to one actor arrive in the order they were sent: completion order.
      TestProbe<DatabaseProtocol.WriteReply> probe = testKit.createTestProbe();
      Transaction big = db.begin().tag("big");
      for (int i = 0; i < 2000; i++) {
        big.put(b("big" + i), new byte[100]);
      }
      List<Long> dispatched = new ArrayList<>();
      dispatched.add(big.id());
      db.commit(big, big.id(), probe.ref());
      for (int i = 0; i < 5; i++) {
        Transaction t = db.begin().tag("small" + i);
        t.put(b("s" + i), b("v"));
        dispatched.add(t.id());
        db.commit(t, t.id(), probe.ref());
      }
      List<Long> completed = new ArrayList<>();
      for (int i = 0; i < dispatched.size(); i++) {
        completed.add(probe.expectMessageClass(DatabaseProtocol.Committed.class).correlation());
      }
      assertEquals(dispatched, completed);
      assertEquals(List.of("big", "small0", "small1", "small2", "small3", "small4"), written);
    }
  }

  @Test
  void withSeveralExecutorsASmallCommitOvertakesABigOne() throws Exception {
    try (CommitlaneDatabase db = open(4)) {
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> "big".equals(c.tag()));
        CompletionStage<CommitResult> big = put(db, "big", "big", "v");
        hold.awaitArrivals(1, Duration.ofSeconds(30));
        CommitResult small = await(put(db, "small", "small", "v"));
        assertTrue(small.version() > 0);
        assertFalse(big.toCompletableFuture().isDone(), "the big commit is still held");
        hold.release();
        await(big);
      }
    }
  }

  @Test
  void aFullQueueAnswersAtOnceWithARetryableError() throws Exception {
    try (CommitlaneDatabase db = open(1, Map.of("commit-queue-capacity", 2))) {
      TestProbe<DatabaseProtocol.WriteReply> probe = testKit.createTestProbe();
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> "first".equals(c.tag()));
        CompletionStage<CommitResult> first = put(db, "first", "a", "1");
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // the only executor is busy; the queue is empty again
        CompletionStage<CommitResult> q1 = put(db, "q1", "b", "1");
        CompletionStage<CommitResult> q2 = put(db, "q2", "c", "1");
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(put(db, "over", "d", "1")));
        CommitQueueFullException full = assertInstanceOf(CommitQueueFullException.class, e.getCause());
        assertTrue(full.isRetryable());
        Transaction t = db.begin();
        t.put(b("e"), b("1"));
        db.commit(t, 7, probe.ref());
        FailedReply overloaded = expectFailed(probe);
        assertEquals(DatabaseProtocol.FailureReason.OVERLOADED, overloaded.reason());
        assertTrue(overloaded.retryable());
        assertEquals(7, overloaded.correlation());
        assertEquals(2, db.stats().overloaded());
        hold.release();
        await(first);
        await(q1);
        await(q2);
      }
      assertEquals(null, db.storage().get(b("d")), "an overloaded commit wrote nothing");
    }
  }

  @Test
  void actorsGetTypedRepliesWithTheirCorrelation() throws Exception {
    try (CommitlaneDatabase db = open(2)) {
      TestProbe<DatabaseProtocol.WriteReply> probe = testKit.createTestProbe();
      Transaction t = db.begin();
      t.put(b("k"), b("v"));
      db.commit(t, 11, probe.ref());
      DatabaseProtocol.Committed ok = probe.expectMessageClass(DatabaseProtocol.Committed.class);
      assertEquals(11, ok.correlation());
      assertEquals(0, ok.stamp().ownerEpoch());
      assertEquals(-1, ok.logPosition());

      Transaction stale = db.begin();
      stale.get(b("k"));
      stale.put(b("k"), b("stale"));
      db.storage().put(b("k"), b("newer"));
      db.commit(stale, 12, probe.ref());
      DatabaseProtocol.Conflicted conflicted = probe.expectMessageClass(DatabaseProtocol.Conflicted.class);
      assertEquals(12, conflicted.correlation());
      assertEquals(DatabaseProtocol.ConflictCause.VALIDATION, conflicted.cause());

      TestProbe<DatabaseProtocol.StatsReply> stats = testKit.createTestProbe();
      db.ref().tell(new DatabaseProtocol.GetStats(13, stats.ref()));
      DatabaseProtocol.DatabaseStats snapshot = stats.expectMessageClass(DatabaseProtocol.DatabaseStats.class);
      assertEquals(13, snapshot.correlation());
      assertEquals(1, snapshot.committed());
      assertEquals(1, snapshot.conflicts());
      assertEquals(2, snapshot.commitThreads());
      assertEquals("OK", snapshot.health());
      assertEquals("", snapshot.healthError());
      assertTrue(snapshot.memtableBytes() > 0, "the commits are in the memtable: " + snapshot);
      assertTrue(snapshot.blockCacheHits() >= 0 && snapshot.stallMicros() == 0, "statistics are on: " + snapshot);
      assertFalse(snapshot.writeStopped());
    }
  }

  @Test
  void transactAsyncRetriesOnConflict() throws Exception {
    try (CommitlaneDatabase db = open(2)) {
      db.storage().put(b("n"), b("0"));
      int[] attempts = {0};
      int result = await(db.transactAsync(t -> {
        int n = Integer.parseInt(s(t.get(b("n"))));
        if (attempts[0]++ == 0) {
          db.storage().put(b("n"), b("10"));
        }
        t.put(b("n"), b(Integer.toString(n + 1)));
        return n + 1;
      }));
      assertEquals(11, result);
      assertEquals(1, db.stats().retries());
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(db.transactAsync(1, t -> {
        t.get(b("n"));
        db.storage().put(b("n"), b("0"));
        return t.put(b("n"), b("1"));
      })));
      assertEquals(2, assertInstanceOf(ConflictException.class, e.getCause()).attempts());
    }
  }

  @Test
  void closeDrainsAdmittedCommitsThenRefusesNewOnes() throws Exception {
    CommitlaneDatabase db = open(2);
    StageControl stages = StageControl.install(db.storage());
    Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> "a".equals(c.tag()));
    CompletionStage<CommitResult> a = put(db, "a", "a", "1");
    hold.awaitArrivals(1, Duration.ofSeconds(30));
    CompletionStage<org.apache.pekko.Done> closed = db.closeAsync();
    ExecutionException refused = assertThrows(ExecutionException.class, () -> await(put(db, "late", "late", "1")));
    assertInstanceOf(DatabaseClosedException.class, refused.getCause());
    assertFalse(closed.toCompletableFuture().isDone(), "close waits for the admitted commit");
    hold.release();
    await(a);
    await(closed);
    assertFalse(Database.isOpen(dir));
    try (Database again = Database.open(dir)) {
      assertEquals("1", s(again.get(b("a"))));
      assertEquals(null, again.get(b("late")));
    }
  }

  @Test
  void closingOneHandleKeepsTheOthersWorking() throws Exception {
    CommitlaneDatabase first = open(2);
    try (CommitlaneDatabase second = open(2)) {
      first.close();
      await(put(second, null, "k", "v"));
      assertEquals("v", s(second.storage().get(b("k"))));
    }
    assertFalse(Database.isOpen(dir));
  }

  @Test
  void stalledCommitsDoNotStarveTheDefaultDispatcher() throws Exception {
    // Merging off, so that both executors stall (one would otherwise take the burst as a group).
    try (CommitlaneDatabase db = open(2, Map.of("write-groups.enabled", "off"))) {
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
        List<CompletionStage<CommitResult>> commits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          commits.add(put(db, "c" + i, "k" + i, "v"));
        }
        hold.awaitArrivals(2, Duration.ofSeconds(30));
        // Both commit threads are stuck; the default dispatcher is not involved and stays free.
        CompletableFuture<String> task = CompletableFuture.supplyAsync(() -> "ran",
            testKit.system().dispatchers().lookup(DispatcherSelector.defaultDispatcher()));
        assertEquals("ran", task.get(10, TimeUnit.SECONDS));
        hold.release();
        for (CompletionStage<CommitResult> c : commits) {
          await(c);
        }
      }
    }
  }

  @Test
  void withNoExecutorThreadCommitsRunInlineAndAreNotLost() throws Exception {
    Faults faults = new Faults();
    faults.failExecutorStartsFrom(1);
    try (CommitlaneDatabase db = CommitlaneDatabase.open(testKit.system(), dir,
        settings(testKit.system(), Map.of("commit-threads", 2, "wal", "off")), faults)) {
      List<String> threads = new CopyOnWriteArrayList<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.WRITTEN) {
          threads.add(Thread.currentThread().getName());
        }
      });
      for (int i = 0; i < 20; i++) {
        await(put(db, null, "k" + i, "v"));
      }
      assertEquals(20, threads.size());
      assertTrue(threads.stream().noneMatch(n -> n.startsWith("commitlane-commit-")), threads.toString());
      assertEquals(0, db.stats().executorsStarted());
      assertEquals("v", s(db.storage().get(b("k19"))));
    }
  }

  @Test
  void waitingForACommitDoesNotNeedItsThread() throws Exception {
    try (CommitlaneDatabase db = open(1)) {
      Duration d = Duration.ofSeconds(30);
      assertEquals(1, db.settings().commitThreads());
      CommitResult r = put(db, null, "k", "v").toCompletableFuture().get(d.toSeconds(), TimeUnit.SECONDS);
      assertTrue(r.version() > 0);
    }
  }
}
