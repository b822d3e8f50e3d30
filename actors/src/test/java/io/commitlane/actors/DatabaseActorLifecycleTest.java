package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A database actor under a user's guardian, and databases under coordinated shutdown. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class DatabaseActorLifecycleTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  /** A guardian of the user's: spawns the database actor, hands its reference out, and stops (with it) on request. */
  private static Behavior<String> guardian(Path path, PipelineSettings settings, ActorRef<ActorRef<Request>> ready) {
    return Behaviors.setup(ctx -> {
      ready.tell(ctx.spawn(DatabaseActor.create(path, settings), "orders"));
      return Behaviors.receive(String.class).onMessageEquals("stop", Behaviors::stopped).build();
    });
  }

  /**
   * Stop the guardian right after a burst of writes, many times: every write gets one reply, the
   * requests the database actor never read are answered DATABASE_CLOSED, and every acknowledged
   * write is there after a clean close and reopen (WAL off: only the close's flush keeps them).
   */
  @Test
  void stoppedByItsGuardianWithCommitsInFlightItLosesNothingAcknowledged() throws Exception {
    int writes = 30;
    int committed = 0;
    int refused = 0;
    for (int round = 0; round < 50; round++) {
      Path path = dir.resolve("r" + round);
      PipelineSettings settings = settings(testKit.system(), Map.of("wal", "off", "commit-threads", 2));
      TestProbe<ActorRef<Request>> ready = testKit.createTestProbe();
      ActorRef<String> guardian = testKit.spawn(guardian(path, settings, ready.ref()));
      ActorRef<Request> db = ready.receiveMessage(WAIT);
      TestProbe<WriteReply> replies = testKit.createTestProbe();
      Map<Long, WriteReply> byCorrelation = new HashMap<>();
      // The first write is answered before the burst: the stop meets an open database.
      db.tell(new Write(List.of(Mutation.put(b("k0"), b("v0"))), null, 0, replies.ref()));
      byCorrelation.put(0L, replies.expectMessageClass(Committed.class, WAIT));
      for (long n = 1; n < writes; n++) {
        db.tell(new Write(List.of(Mutation.put(b("k" + n), b("v" + n))), null, n, replies.ref()));
      }
      guardian.tell("stop");
      testKit.createTestProbe().expectTerminated(guardian, WAIT);

      for (int i = 1; i < writes; i++) {
        WriteReply r = replies.receiveMessage(WAIT);
        assertEquals(null, byCorrelation.put(r.correlation(), r), "round " + round + ": two replies for " + r.correlation());
      }
      for (WriteReply r : byCorrelation.values()) {
        if (r instanceof Committed) {
          committed++;
        } else {
          refused++;
          FailedReply f = Refusals.failed(r);
          assertEquals(FailureReason.DATABASE_CLOSED, f.reason(), "round " + round + ": " + f);
        }
      }
      // The stopped actor's handle closes in the background: its admitted commits ended (each was
      // answered), then the last handle's close releases the files.
      Commitlane.get(testKit.system()).whenReleased(path).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertFalse(Database.isOpen(path), "round " + round + ": the database was not released");
      try (Database reopened = Database.open(path, DatabaseOptions.defaults().withWal(false))) {
        for (Map.Entry<Long, WriteReply> e : byCorrelation.entrySet()) {
          byte[] value = reopened.get(b("k" + e.getKey()));
          if (e.getValue() instanceof Committed) {
            assertEquals("v" + e.getKey(), s(value), "round " + round + ": acknowledged write " + e.getKey() + " lost");
          } else {
            assertEquals(null, value, "round " + round + ": write " + e.getKey() + " failed but was written");
          }
        }
      }
    }
    assertTrue(committed >= 50 && committed + refused == 50 * writes, committed + " acknowledged, " + refused + " refused");
  }

  /** The parent of a database actor whose open fails sees the typed error, as for any failing child. */
  @Test
  void anOpenThatFailsFailsTheActorWithTheTypedError() {
    TestProbe<Object> events = testKit.createTestProbe();
    TestProbe<WriteReply> replies = testKit.createTestProbe();
    testKit.spawn(Behaviors.<Object>setup(ctx -> {
      ActorRef<Request> child = ctx.spawn(DatabaseActor.create(dir, ConfigFactory.parseString("commitlane.txlog.durabilty = fsync")),
          "misspelt");
      ctx.watch(child);
      child.tell(new Write(List.of(Mutation.put(b("k"), b("v"))), null, 1, replies.ref()));
      return Behaviors.receive(Object.class)
          .onSignal(ChildFailed.class, f -> {
            events.ref().tell(f.getCause());
            return Behaviors.same();
          })
          .onSignal(Terminated.class, t -> Behaviors.same())
          .build();
    }));
    InvalidSettingsException e = assertInstanceOf(InvalidSettingsException.class, events.receiveMessage(WAIT));
    assertEquals(List.of("commitlane.txlog.durabilty"), e.fields());
    assertTrue(e.getMessage().contains("commitlane.txlog.durability"), e.getMessage());
    // The request it could not read (it failed at start) is answered from the dead letters.
    assertEquals(FailureReason.DATABASE_CLOSED, expectFailed(replies, WAIT).reason());
    assertFalse(Database.isOpen(dir));
  }

  /**
   * Coordinated shutdown closes the databases in their own phase, after the cluster's exit and
   * before the cluster extension's shutdown: a held commit and the ones queued behind it are
   * drained (committed), not failed.
   */
  @Test
  void coordinatedShutdownDrainsOpenDatabasesInItsOwnPhase() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "shutdown");
    List<String> events = new CopyOnWriteArrayList<>();
    try {
      CommitlaneDatabase db = Commitlane.get(system).open(dir,
          settings(system, Map.of("wal", "off", "commit-threads", 1, "write-groups.enabled", "off")));
      StageControl stages = StageControl.install(db.storage());
      Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
      List<CompletableFuture<io.commitlane.storage.CommitResult>> commits = new ArrayList<>();
      commits.add(PipelineTestSupport.put(db, null, "held", "v").toCompletableFuture());
      hold.awaitArrivals(1, Duration.ofSeconds(30));
      for (int i = 0; i < 3; i++) {
        commits.add(PipelineTestSupport.put(db, null, "queued" + i, "v").toCompletableFuture());
      }
      CoordinatedShutdown shutdown = CoordinatedShutdown.get(system.classicSystem());
      shutdown.addTask("cluster-exiting-done", "record", () -> {
        events.add("cluster-exiting-done: " + (Database.isOpen(dir) ? "open" : "closed"));
        return CompletableFuture.completedFuture(Done.getInstance());
      });
      shutdown.addTask(Commitlane.CLOSE_PHASE, "release-the-held-commit", () -> {
        events.add(Commitlane.CLOSE_PHASE);
        hold.release(); // runs beside the close: the close must wait for what it releases
        return CompletableFuture.completedFuture(Done.getInstance());
      });
      shutdown.addTask("cluster-shutdown", "record", () -> {
        events.add("cluster-shutdown: " + (Database.isOpen(dir) ? "open" : "closed")
            + ", " + commits.stream().filter(c -> c.isDone() && !c.isCompletedExceptionally()).count() + " committed");
        return CompletableFuture.completedFuture(Done.getInstance());
      });
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertEquals(List.of("cluster-exiting-done: open", Commitlane.CLOSE_PHASE, "cluster-shutdown: closed, 4 committed"), events);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * A close that outlasts its shutdown phase: the actor system terminates with the database still
   * draining, so its supervisor stops without a release. The release then runs on a thread of its
   * own (no dispatcher thread waits for RocksDB), and the system's termination completes only
   * after it: a terminated system holds no database, and the held commit, let go as the system
   * terminates, survives a reopen with the WAL off if it was acknowledged.
   */
  @Test
  void aSystemThatTerminatesDuringAStuckCloseStillReleasesTheDatabaseBeforeItIsTerminated() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "stuck-close", ConfigFactory.parseString(
        "pekko.coordinated-shutdown.phases.commitlane-close-databases.timeout = 200 ms").withFallback(ConfigFactory.load()));
    CommitlaneDatabase db = Commitlane.get(system).open(dir,
        settings(system, Map.of("wal", "off", "commit-threads", 1, "write-groups.enabled", "off")));
    StageControl stages = StageControl.install(db.storage());
    Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
    CompletableFuture<io.commitlane.storage.CommitResult> held = PipelineTestSupport.put(db, null, "held", "v").toCompletableFuture();
    hold.awaitArrivals(1, Duration.ofSeconds(30));
    CoordinatedShutdown.get(system.classicSystem()).addTask("before-actor-system-terminate", "let-the-commit-go", () -> {
      hold.release(); // the close phase has timed out by now: the drain goes on while the system stops
      return CompletableFuture.completedFuture(Done.getInstance());
    });
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertFalse(Database.isOpen(dir), "released before the termination completed");
    boolean acknowledged;
    try {
      held.get(30, TimeUnit.SECONDS);
      acknowledged = true;
    } catch (java.util.concurrent.ExecutionException e) {
      acknowledged = false; // failed as the system stopped: allowed, as long as it was not acknowledged
    }
    try (Database reopened = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      if (acknowledged) {
        assertEquals("v", s(reopened.get(b("held"))), "an acknowledged commit survives");
      }
    }
  }
}
