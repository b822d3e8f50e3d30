package io.commitlane.cluster;

import io.commitlane.cluster.internal.owner.OwnerLock;
import static io.commitlane.cluster.Await.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.StatsReply;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.PipelineSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One database entity, spawned directly on a node that joined no cluster: what it answers and
 * what it releases when its open fails, when the previous owner holds the lock, and when it is
 * stopped while an open attempt runs or waits. The blocking dispatcher has one thread here, so a
 * gate task queued on it holds an open attempt back until the test opens the gate.
 */
class ShardedDatabaseLifeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static ActorTestKit kit;
  private static Executor blocking;

  @TempDir
  Path dataDir;

  @BeforeAll
  static void start() {
    kit = ActorTestKit.create("entity-life", ConfigFactory.parseString(
            "commitlane.cluster.blocking-dispatcher.thread-pool-executor.fixed-pool-size = 1")
        .withFallback(ConfigFactory.parseResources("cluster-test.conf"))
        .withFallback(ConfigFactory.load()));
    blocking = kit.system().dispatchers().lookup(DispatcherSelector.fromConfig(ClusterSettings.BLOCKING_DISPATCHER));
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void aStopWhileTheLockIsBusyAnswersWhatWaitsClosingAndStops() throws Exception {
    OwnerLock stuck = OwnerLock.tryAcquire(dataDir.resolve("busy"), "a stuck owner elsewhere");
    assertNotNull(stuck);
    try (LogLatch busy = LogLatch.on(ShardedDatabase.class, "database busy is held by its previous owner")) {
      ActorRef<DatabaseProtocol.Command> entity = spawn("busy", "open-retry-interval = 1 minute, open-timeout = 10 minutes");
      TestProbe<StatsReply> replies = kit.createTestProbe();
      entity.tell(new GetStats(1, replies.ref()));
      busy.await(WAIT); // the attempt found the lock taken: the entity waits a minute to try again
      entity.tell(ShardedDatabase.Stop.INSTANCE);
      assertEquals(UnavailableReason.CLOSING, as(Unavailable.class, replies.receiveMessage(WAIT)).reason());
      replies.expectTerminated(entity, WAIT);
    } finally {
      stuck.close();
    }
  }

  @Test
  void aStopWhileAnAttemptRunsClosesWhatItOpensAndReleasesTheLockBeforeStopping() throws Exception {
    try (LogLatch opened = LogLatch.on(ShardedDatabase.class, "database racing opened on this node");
         Gate gate = Gate.onBlockingDispatcher()) {
      ActorRef<DatabaseProtocol.Command> entity = spawn("racing", "");
      TestProbe<StatsReply> replies = kit.createTestProbe();
      entity.tell(new GetStats(1, replies.ref()));
      entity.tell(ShardedDatabase.Stop.INSTANCE); // before the attempt, queued behind the gate, can finish
      gate.open();
      assertEquals(UnavailableReason.CLOSING, as(Unavailable.class, replies.receiveMessage(WAIT)).reason());
      replies.expectTerminated(entity, WAIT);
      assertEquals(1, opened.count(), "the attempt opened the database, and the entity closed it instead of serving it");
    }
    assertLockFree("racing"); // released before the entity stopped
  }

  @Test
  void anEntityStoppedWhileAnAttemptRunsLeavesTheAttemptToCloseWhatItOpens() throws Exception {
    try (Gate gate = Gate.onBlockingDispatcher()) {
      ActorRef<DatabaseProtocol.Command> entity = spawn("left", "open-buffer = 1");
      TestProbe<StatsReply> replies = kit.createTestProbe();
      entity.tell(new GetStats(1, replies.ref()));
      entity.tell(new GetStats(2, replies.ref()));
      StatsReply fullReply = replies.receiveMessage(WAIT);
      Unavailable full = as(Unavailable.class, fullReply);
      assertEquals(2, fullReply.correlation());
      assertEquals(UnavailableReason.BUFFER_FULL, full.reason(), "the first request waits in the buffer");
      kit.stop(entity, WAIT); // a forced stop (a system message): no Stop, no close
      StatsReply stoppedReply = replies.receiveMessage(WAIT);
      Unavailable stopped = as(Unavailable.class, stoppedReply);
      assertEquals(1, stoppedReply.correlation());
      assertEquals(UnavailableReason.CLOSING, stopped.reason(), "what waited is answered when the entity stops");
      gate.open();
    }
    // The attempt ran after its entity stopped: it took the lock, opened, found the entity gone and
    // began the close; the lock goes when the close is done.
    Gate.awaitQueuedWork();
    kit.createTestProbe().awaitAssert(WAIT, () -> {
      assertLockFree("left");
      return null;
    });
  }

  @Test
  void anOpenThatFailsRefusesWhatWaitedByCauseAndTheNextRequestOpensAgain() throws Exception {
    TestProbe<StatsReply> replies = kit.createTestProbe();
    ActorRef<DatabaseProtocol.Command> badName = spawn("no/such name", "");
    badName.tell(new GetStats(1, replies.ref()));
    Failed invalid = as(Failed.class, replies.receiveMessage(WAIT));
    assertEquals(FailureReason.INVALID_REQUEST, invalid.reason());
    assertFalse(invalid.retryable(), invalid.toString());
    kit.stop(badName, WAIT);

    Path blocked = Files.createFile(dataDir.resolve("blocked")); // a file where the database's directory should be
    ActorRef<DatabaseProtocol.Command> entity = spawn("blocked", "");
    entity.tell(new GetStats(2, replies.ref()));
    Failed storage = as(Failed.class, replies.receiveMessage(WAIT));
    assertEquals(FailureReason.STORAGE, storage.reason());
    assertTrue(storage.retryable(), storage.toString());

    Files.delete(blocked);
    entity.tell(new GetStats(3, replies.ref()));
    assertEquals(3, as(DatabaseStats.class, replies.receiveMessage(WAIT)).correlation(), "a refused entity opens again");
    close(entity);
  }

  @Test
  void eachOpenLogsABusyLockOnceAndHasItsOwnTimeout() {
    OwnerLock stuck = OwnerLock.tryAcquire(dataDir.resolve("held"), "a stuck owner elsewhere");
    assertNotNull(stuck);
    TestProbe<StatsReply> replies = kit.createTestProbe();
    ActorRef<DatabaseProtocol.Command> entity;
    try (LogLatch busy = LogLatch.on(ShardedDatabase.class, "database held is held by its previous owner")) {
      entity = spawn("held", "open-retry-interval = 5ms, open-timeout = 200ms");
      entity.tell(new GetStats(1, replies.ref()));
      assertEquals(UnavailableReason.PREVIOUS_OWNER_HOLDS, as(Unavailable.class, replies.receiveMessage(WAIT)).reason());
      assertEquals(1, busy.count(), "one line for the whole open, however often it retried");
      entity.tell(new GetStats(2, replies.ref()));
      assertEquals(UnavailableReason.PREVIOUS_OWNER_HOLDS, as(Unavailable.class, replies.receiveMessage(WAIT)).reason());
      assertEquals(2, busy.count(), "the next request's open logs its own line");
    } finally {
      stuck.close();
    }
    entity.tell(new GetStats(3, replies.ref()));
    assertEquals(3, as(DatabaseStats.class, replies.receiveMessage(WAIT)).correlation());
    close(entity);
  }

  private ActorRef<DatabaseProtocol.Command> spawn(String name, String clusterSettings) {
    ClusterSettings settings = ClusterSettings.fromConfig(ConfigFactory.parseString("commitlane.cluster { " + clusterSettings + " }")
        .withFallback(kit.system().settings().config())).withDataDir(dataDir);
    return kit.spawn(ShardedDatabase.create(name, settings, PipelineSettings.defaults()));
  }

  /** Stop an open entity as its shard does, and wait until it closed the database and stopped. */
  private static void close(ActorRef<DatabaseProtocol.Command> entity) {
    TestProbe<Object> watcher = kit.createTestProbe();
    entity.tell(ShardedDatabase.Stop.INSTANCE);
    watcher.expectTerminated(entity, WAIT);
  }

  /**
   * Every kind of request refused by an entity, while it opens with a full buffer (BUFFER_FULL)
   * and when it stops with requests buffered (CLOSING), is answered with the refusal of its own
   * reply family: the one a message adapter of that family, and no other, receives.
   */
  @Test
  void everyKindOfRequestIsRefusedInItsOwnReplyFamily() throws Exception {
    try (Gate gate = Gate.onBlockingDispatcher()) {
      ActorRef<DatabaseProtocol.Command> entity = spawn("families", "open-buffer = 12");
      TestProbe<DatabaseProtocol.Reply> replies = kit.createTestProbe(DatabaseProtocol.Reply.class);
      List<DatabaseProtocol.Request> buffered = everyKind(replies.ref(), 1);
      List<DatabaseProtocol.Request> overflow = everyKind(replies.ref(), 101);
      buffered.forEach(entity::tell); // the attempt waits behind the gate: these fill the buffer
      overflow.forEach(entity::tell);
      for (DatabaseProtocol.Request r : overflow) {
        assertRefusedInItsFamily(r, replies.receiveMessage(WAIT), UnavailableReason.BUFFER_FULL);
      }
      kit.stop(entity, WAIT);
      Map<Long, DatabaseProtocol.Reply> byCorrelation = new HashMap<>();
      for (int i = 0; i < buffered.size(); i++) {
        DatabaseProtocol.Reply reply = replies.receiveMessage(WAIT);
        byCorrelation.put(reply.correlation(), reply);
      }
      for (DatabaseProtocol.Request r : buffered) {
        assertRefusedInItsFamily(r, byCorrelation.get(r.correlation()), UnavailableReason.CLOSING);
      }
      gate.open();
    }
    Gate.awaitQueuedWork(); // the attempt ran after its entity stopped, and closes what it opened
    kit.createTestProbe().awaitAssert(WAIT, () -> {
      assertLockFree("families");
      return null;
    });
  }

  private static void assertRefusedInItsFamily(DatabaseProtocol.Request request, DatabaseProtocol.Reply reply,
      UnavailableReason reason) {
    String what = request.getClass().getSimpleName() + " got " + reply;
    assertEquals(request.refused(new Unavailable(reason, "")).getClass(), reply.getClass(), what);
    assertEquals(request.correlation(), reply.correlation(), what);
    assertTrue(((DatabaseProtocol.RefusedReply) reply).is(reason), what);
  }

  /** One request of every kind, each replying to {@code replyTo} (seen as its family), correlations from {@code first}. */
  @SuppressWarnings("unchecked")
  private List<DatabaseProtocol.Request> everyKind(ActorRef<DatabaseProtocol.Reply> replyTo, long first) {
    byte[] k = {1};
    long c = first;
    List<DatabaseProtocol.Request> all = List.of(
        new DatabaseProtocol.Write(List.of(io.commitlane.actors.Mutation.put(k, k)), null, c++, (ActorRef) replyTo),
        new DatabaseProtocol.ConditionalWrite(List.of(io.commitlane.actors.Expectation.absent(k)), List.of(), null, c++,
            (ActorRef) replyTo),
        new DatabaseProtocol.Get(io.commitlane.actors.Key.of(k), c++, (ActorRef) replyTo),
        new DatabaseProtocol.MultiGet(List.of(io.commitlane.actors.Key.of(k)), c++, (ActorRef) replyTo),
        new DatabaseProtocol.Scan(io.commitlane.actors.ScanRange.all(null), 10, c++, (ActorRef) replyTo),
        new DatabaseProtocol.Count(io.commitlane.actors.ScanRange.all(null), true, c++, (ActorRef) replyTo),
        new DatabaseProtocol.CreateStore("s", c++, (ActorRef) replyTo),
        new DatabaseProtocol.DropStore("s", c++, (ActorRef) replyTo),
        new GetStats(c++, (ActorRef) replyTo),
        new DatabaseProtocol.OpenChangeFeed("events", -1, c++, (ActorRef) replyTo),
        new DatabaseProtocol.Backup(dataDir.resolve("backups"), c++, (ActorRef) replyTo),
        new DatabaseProtocol.Checkpoint(dataDir.resolve("copy"), c++, (ActorRef) replyTo));
    assertEquals(DatabaseProtocol.Request.class.getPermittedSubclasses().length, all.size(), "a request kind is missing here");
    return all;
  }

  private void assertLockFree(String name) {
    OwnerLock lock = OwnerLock.tryAcquire(dataDir.resolve(name), "the test");
    assertNotNull(lock, "the entity still holds the lock of " + name);
    lock.close();
  }

  /** Occupies the blocking dispatcher's only thread until opened: open attempts queue behind it. */
  private static final class Gate implements AutoCloseable {
    private final CountDownLatch gate = new CountDownLatch(1);

    static Gate onBlockingDispatcher() throws InterruptedException {
      Gate g = new Gate();
      CountDownLatch running = new CountDownLatch(1);
      blocking.execute(() -> {
        running.countDown();
        try {
          g.gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      running.await();
      return g;
    }

    /** Returns once the blocking dispatcher ran everything queued on it before this call. */
    static void awaitQueuedWork() {
      CompletableFuture.runAsync(() -> { }, blocking).join();
    }

    void open() {
      gate.countDown();
    }

    @Override
    public void close() {
      open();
    }
  }
}
