package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every request on a database's reference gets exactly one reply carrying its correlation: while
 * the database closes and after, when its queue is full, and when a commit executor crashes.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ExactlyOneReplyTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  /** One executor, no merging: a held commit holds the executor, and the rest wait in the queue. */
  private CommitlaneDatabase open(Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>(more);
    m.put("wal", "off");
    m.put("commit-threads", 1);
    m.put("write-groups.enabled", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  private static Write write(long n, ActorRef<DatabaseProtocol.WriteReply> replyTo) {
    return new Write(List.of(Mutation.put(b("k" + n), b("v" + n))), null, n, replyTo);
  }

  /** Receive {@code n} replies and check that they answer correlations 1..n, each once. */
  private static Map<Long, Reply> oneEach(TestProbe<? extends Reply> probe, int n) {
    Map<Long, Reply> byCorrelation = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Reply r = probe.receiveMessage(WAIT);
      assertEquals(null, byCorrelation.put(r.correlation(), r), "a second reply for " + r.correlation() + ": " + r);
    }
    for (long c = 1; c <= n; c++) {
      assertTrue(byCorrelation.containsKey(c), "no reply for " + c + ": " + byCorrelation);
    }
    probe.expectNoMessage(Duration.ZERO);
    return byCorrelation;
  }

  @Test
  void whileTheDatabaseClosesAndAfterItClosed() throws Exception {
    CommitlaneDatabase db = open(Map.of());
    ActorRef<Request> ref = db.ref();
    TestProbe<DatabaseProtocol.WriteReply> probe = testKit.createTestProbe();
    TestProbe<DatabaseProtocol.ReadReply> reads = testKit.createTestProbe();
    CompletionStage<Done> closed;
    try (StageControl stages = StageControl.install(db.storage())) {
      Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
      ref.tell(write(1, probe.ref()));
      hold.awaitArrivals(1, Duration.ofSeconds(30));
      for (long n = 2; n <= 5; n++) {
        ref.tell(write(n, probe.ref())); // queued behind the held commit, or refused once the close began
      }
      closed = db.closeAsync();
      for (long n = 6; n <= 9; n++) {
        ref.tell(write(n, probe.ref()));
      }
      ref.tell(new Get(Key.of(b("k0")), 100, reads.ref()));
      assertEquals(100, reads.expectMessageClass(Values.class, WAIT).correlation(), "a closing database still reads");
      assertFalse(closed.toCompletableFuture().isDone(), "the close waits for the held commit");
    }
    closed.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    testKit.createTestProbe().expectTerminated(ref, WAIT); // the database's actor stops with its supervisor
    for (long n = 10; n <= 14; n++) {
      ref.tell(write(n, probe.ref())); // to a stopped actor: answered from the dead letters
    }
    Map<Long, Reply> replies = oneEach(probe, 14);
    assertInstanceOf(Committed.class, replies.get(1L), "admitted before the close: drained");
    for (long n = 2; n <= 14; n++) {
      Reply r = replies.get(n);
      if (!(r instanceof Committed)) {
        FailedReply f = Refusals.failed(r);
        assertEquals(FailureReason.DATABASE_CLOSED, f.reason(), f.toString());
      }
    }
    for (long n = 10; n <= 14; n++) {
      assertInstanceOf(DatabaseProtocol.WriteRefused.class, replies.get(n), "sent after the close completed");
    }
    assertFalse(Database.isOpen(dir));
    try (Database reopened = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      for (Map.Entry<Long, Reply> e : replies.entrySet()) {
        if (e.getValue() instanceof Committed) {
          assertEquals("v" + e.getKey(), s(reopened.get(b("k" + e.getKey()))), "acknowledged write " + e.getKey() + " lost");
        } else {
          assertEquals(null, reopened.get(b("k" + e.getKey())), "write " + e.getKey() + " failed but was written");
        }
      }
    }
  }

  @Test
  void whenTheQueueIsFull() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("commit-queue-capacity", 2))) {
      TestProbe<DatabaseProtocol.WriteReply> probe = testKit.createTestProbe();
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.VALIDATED, c -> true);
        db.ref().tell(write(1, probe.ref()));
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // the only executor holds it; the queue is empty again
        for (long n = 2; n <= 10; n++) {
          db.ref().tell(write(n, probe.ref()));
        }
        for (long n = 4; n <= 10; n++) {
          FailedReply f = expectFailed(probe, WAIT);
          assertEquals(n, f.correlation(), "refused in the order they came");
          assertEquals(FailureReason.OVERLOADED, f.reason());
          assertTrue(f.retryable());
        }
      }
      Map<Long, Reply> replies = oneEach(probe, 3);
      for (long n = 1; n <= 3; n++) {
        assertInstanceOf(Committed.class, replies.get(n));
      }
      assertEquals(7, db.stats().overloaded());
    }
  }

  @Test
  void whenACommitExecutorCrashesAndRestarts() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      AtomicBoolean crashNext = new AtomicBoolean(true);
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.DEQUEUED && crashNext.compareAndSet(true, false)) {
          throw new ExecutorCrash();
        }
      });
      TestProbe<DatabaseProtocol.WriteReply> probe = testKit.createTestProbe();
      for (long n = 1; n <= 5; n++) {
        db.ref().tell(write(n, probe.ref()));
      }
      Map<Long, Reply> replies = oneEach(probe, 5);
      FailedReply crashed = Refusals.failed(replies.get(1L));
      assertEquals(FailureReason.STORAGE, crashed.reason());
      assertTrue(crashed.message().contains("injected executor crash"), crashed.message());
      for (long n = 2; n <= 5; n++) {
        assertInstanceOf(Committed.class, replies.get(n), "run by the restarted executor");
      }
      assertEquals(1, db.stats().executorsStarted(), "restarted in place");
    }
  }

  /** An Error, which the executor does not swallow: its supervisor restarts it. */
  private static final class ExecutorCrash extends Error {
    ExecutorCrash() {
      super("injected executor crash");
    }
  }
}
