package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.put;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.PathInUseException;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** One database per path per actor system, shared by every handle of the path. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class SharedDatabaseTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private static PipelineSettings twoThreads(ActorSystem<?> system) {
    // Merging off: one executor would take a burst as one group; this test is about executors.
    return settings(system, Map.of("commit-threads", 2, "wal", "off", "write-groups.enabled", "off"));
  }

  /**
   * Two facade handles and a database actor spawned by the test, one path: a burst from all three
   * while every commit is held finds two executors, never more, and one supervisor.
   */
  @Test
  void handlesOfOnePathNeverRunMoreExecutorsThanCommitThreads() throws Exception {
    PipelineSettings settings = twoThreads(testKit.system());
    CommitlaneDatabase first = Commitlane.get(testKit.system()).open(dir, settings);
    CommitlaneDatabase second = Commitlane.get(testKit.system()).open(dir, settings);
    ActorRef<DatabaseProtocol.Request> spawned = testKit.spawn(DatabaseActor.create(dir, settings));
    assertEquals(first.ref(), second.ref(), "one database, one reference");
    Set<String> executorThreads = ConcurrentHashMap.newKeySet();
    first.storage().addStageListener((stage, c) -> {
      if (stage == CommitStage.WRITTEN) {
        executorThreads.add(Thread.currentThread().getName());
      }
    });
    TestProbe<DatabaseProtocol.WriteReply> replies = testKit.createTestProbe();
    List<CompletionStage<CommitResult>> commits = new ArrayList<>();
    try (StageControl stages = StageControl.install(first.storage())) {
      Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
      for (int i = 0; i < 6; i++) {
        commits.add(put(first, null, "first" + i, "v"));
        commits.add(put(second, null, "second" + i, "v"));
        spawned.tell(new Write(List.of(Mutation.put(b("spawned" + i), b("v"))), null, i, replies.ref()));
      }
      hold.awaitArrivals(2, Duration.ofSeconds(30));
      assertEquals(2, hold.holding(), "both executors hold a commit; the rest of the burst waits");
      assertEquals(2, first.stats().executorsStarted());
      assertEquals(2, second.stats().executorsStarted());
    }
    for (CompletionStage<CommitResult> c : commits) {
      await(c);
    }
    for (int i = 0; i < 6; i++) {
      replies.expectMessageClass(Committed.class, Duration.ofSeconds(30));
    }
    assertEquals(2, first.stats().executorsStarted());
    assertTrue(executorThreads.size() <= 2, "commit threads used: " + executorThreads);
    assertEquals(2, executorThreads.stream().filter(t -> t.startsWith("commitlane-commit-")).count(), executorThreads.toString());

    testKit.stop(spawned);
    first.close();
    assertTrue(Database.isOpen(dir), "another handle still holds the database");
    await(put(second, null, "after", "v"));
    second.close();
    assertFalse(Database.isOpen(dir), "the last handle released it");
    assertFalse(Commitlane.get(testKit.system()).openPaths().contains(dir.toRealPath()));
  }

  @Test
  void aSecondActorSystemOfTheProcessIsRefusedThePath() throws Exception {
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, twoThreads(testKit.system()));
    ActorSystem<Void> other = ActorSystem.create(Behaviors.empty(), "other");
    try {
      PathInUseException e = assertThrows(PathInUseException.class, () -> Commitlane.get(other).open(dir, twoThreads(other)));
      assertTrue(e.getMessage().contains("\"" + testKit.system().name() + "\""), e.getMessage());
      assertTrue(e.getMessage().contains("\"other\""), e.getMessage());
      db.close();
      try (CommitlaneDatabase there = Commitlane.get(other).open(dir, twoThreads(other))) {
        await(put(there, null, "k", "v")); // once the first system let go, the second may open it
      }
    } finally {
      other.terminate();
      other.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void anOpenWithOtherSettingsIsRefused() {
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir, twoThreads(testKit.system()))) {
      PathInUseException e = assertThrows(PathInUseException.class,
          () -> Commitlane.get(testKit.system()).open(dir, twoThreads(testKit.system()).withCommitQueueCapacity(10)));
      assertTrue(e.getMessage().contains("fixed by its first open"), e.getMessage());
      assertTrue(e.getMessage().contains("(commitQueueCapacity: open with " + db.settings().commitQueueCapacity() + ", asked for 10)"),
          "names only the setting that differs: " + e.getMessage());
      assertTrue(Database.isOpen(dir));
    }
  }

  /** With the lifecycle dispatcher's threads busy, openAsync still returns at once: the open runs there. */
  @Test
  void openAsyncOpensOnTheLifecycleDispatcherNotTheCaller() throws Exception {
    Executor lifecycle = testKit.system().dispatchers().lookup(DispatcherSelector.fromConfig(Commitlane.LIFECYCLE_DISPATCHER));
    CountDownLatch busy = new CountDownLatch(2);
    CountDownLatch free = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) { // its fixed pool size
      lifecycle.execute(() -> {
        busy.countDown();
        try {
          free.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    assertTrue(busy.await(30, TimeUnit.SECONDS));
    CompletableFuture<CommitlaneDatabase> opening =
        Commitlane.get(testKit.system()).openAsync(dir, twoThreads(testKit.system())).toCompletableFuture();
    assertFalse(opening.isDone(), "opened on the caller's thread");
    free.countDown();
    try (CommitlaneDatabase db = opening.get(30, TimeUnit.SECONDS)) {
      await(put(db, null, "k", "v"));
    }
  }

  @Test
  void anOpenThatFailsFailsTypedAndLeavesNothingOpen() throws Exception {
    ExecutionException e = assertThrows(ExecutionException.class, () -> Commitlane.get(testKit.system())
        .openAsync(dir, com.typesafe.config.ConfigFactory.parseString("commitlane.commit-threds = 2"))
        .toCompletableFuture().get(30, TimeUnit.SECONDS));
    assertInstanceOf(io.commitlane.storage.InvalidSettingsException.class, e.getCause());
    assertFalse(Database.isOpen(dir));
  }
}
