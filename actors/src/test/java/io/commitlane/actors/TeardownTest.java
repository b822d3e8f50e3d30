package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stopping an actor system (or an executor) with commits in flight. */
class TeardownTest {
  @TempDir
  Path dir;

  /**
   * Terminate the actor system right after a burst of commits, many times: nothing hangs, every
   * commit either succeeded or failed, every success is readable after reopening, and no commit
   * thread outlives its system.
   */
  @Test
  void terminatingTheActorSystemWithCommitsInFlightLosesNothingAcknowledged() throws Exception {
    for (int round = 0; round < 15; round++) {
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "teardown-" + round);
      CommitlaneDatabase db = Commitlane.get(system).open(dir, settings(system, Map.of("commit-threads", 2)));
      List<CompletableFuture<CommitResult>> commits = new ArrayList<>();
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String key = round + "/" + i;
        Transaction t = db.begin();
        t.put(b(key), b("v"));
        keys.add(key);
        commits.add(db.commit(t).toCompletableFuture());
      }
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      db.close(); // after termination: releases what is left, does not hang
      List<String> acknowledged = new ArrayList<>();
      for (int i = 0; i < commits.size(); i++) {
        try {
          commits.get(i).get(30, TimeUnit.SECONDS);
          acknowledged.add(keys.get(i));
        } catch (ExecutionException e) {
          // failed (database closed): allowed, as long as it was not acknowledged
        } catch (TimeoutException e) {
          throw new AssertionError("round " + round + ": commit " + i + " never completed", e);
        }
      }
      assertTrue(!Database.isOpen(dir), "round " + round + ": the database handle leaked");
      try (Database reopened = Database.open(dir)) {
        for (String key : acknowledged) {
          assertEquals("v", PipelineTestSupport.s(reopened.get(b(key))), "round " + round + ": acknowledged " + key + " lost");
        }
      }
    }
    awaitNoThread("commitlane-commit-");
  }

  @Test
  void aFailedExecutorIsRestartedAndTheCommitItHeldFailsWithTheCause() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "supervision");
    try (CommitlaneDatabase db = Commitlane.get(system).open(dir, settings(system, Map.of("commit-threads", 1)))) {
      AtomicInteger executorThreads = new AtomicInteger();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.DEQUEUED && "poison".equals(c.tag())) {
          throw new ExecutorCrash();
        }
        if (stage == CommitStage.WRITTEN && Thread.currentThread().getName().startsWith("commitlane-commit-")) {
          executorThreads.incrementAndGet();
        }
      });
      Transaction poison = db.begin().tag("poison");
      poison.put(b("p"), b("x"));
      ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> db.commit(poison).toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertInstanceOf(ExecutorCrash.class, e.getCause());
      for (int i = 0; i < 10; i++) {
        Transaction t = db.begin();
        t.put(b("after" + i), b("v"));
        db.commit(t).toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      assertEquals(10, executorThreads.get(), "the restarted executor runs the later commits");
      assertEquals(1, db.stats().executorsStarted(), "restarted in place, not replaced by a second one");
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** An Error, which the executor does not swallow: its supervisor restarts it. */
  private static final class ExecutorCrash extends Error {
    ExecutorCrash() {
      super("injected executor crash");
    }
  }

  /** Join every thread with that name prefix (each ends when its dispatcher shuts down). */
  private static void awaitNoThread(String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix)) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        assertTrue(!t.isAlive(), "thread " + t.getName() + " outlived its actor system");
      }
    }
  }
}
