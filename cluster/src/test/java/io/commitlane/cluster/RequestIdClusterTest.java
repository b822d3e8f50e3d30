package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.refusal;
import static io.commitlane.cluster.Await.result;
import static io.commitlane.cluster.Await.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.CommitStamp;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.remote.RemoteActorRefProvider;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write sent again with its request id after its first attempt's reply was lost is applied
 * once, whichever owner gets the retry: the owner still running the first attempt (a frozen or
 * slow owner), the next owner after a handoff, and the next owner after the first was cut off
 * and downed while its attempt was still in its commit path. Each retry carries another value:
 * had any been applied, the key would hold it.
 */
class RequestIdClusterTest {
  private static final RequestId ID = RequestId.of("order-1");

  @TempDir
  Path dir;

  /** Held on its owner past the ask timeout: the client's retry joins the attempt in flight and gets its outcome. */
  @Test
  void aRetryThatReachesTheOwnerWhileTheFirstIsHeldJoinsIt() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, "commitlane.cluster.ask-timeout = 1s")) {
      String db = databaseNotOwnedBy(cluster, 0, "frozen-");
      DatabaseSharding client = cluster.databases.get(0);
      try (Database handle = Database.open(dir.resolve(db)); StageControl control = StageControl.install(handle);
           LogLatch joined = LogLatch.on("io.commitlane.actors.internal.protocol.RequestLedger", "request " + ID + " joins its attempt in flight")) {
        Barrier held = control.barrier(CommitStage.VALIDATED, StageControl.any());
        CompletionStage<WriteReply> first = write(client, db, "first");
        held.awaitArrival(Duration.ofSeconds(30));
        Unavailable lost = result(first, Unavailable.class);
        assertEquals(UnavailableReason.NO_REPLY, lost.reason(), "the owner holds the write past the ask timeout");
        CompletionStage<WriteReply> retry = write(client, db, "retry");
        joined.await(Duration.ofSeconds(30));
        assertEquals(1, result(client.stats(db), DatabaseStats.class).admitted(), "the retry was not admitted");
        held.release();
        Committed c = result(retry, Committed.class);
        assertEquals(1, c.stamp().ownerEpoch());
        assertTrue(c.stamp().version() > 0, "answered by the attempt itself: its exact stamp");
      }
      assertEquals("first", value(client, db));
      assertEquals(1, result(client.stats(db), DatabaseStats.class).committed());
    }
  }

  /**
   * The owner leaves while the first attempt is held in its commit path (it drains it before it
   * closes): the retries meet the closing owner ({@code CLOSING}) or wait in the regions, and the
   * next owner answers from the record the drained write left.
   */
  @Test
  void aRetryAfterTheOwnerLeftIsAnsweredFromTheRecordByTheNextOwner() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, "commitlane.cluster.ask-timeout = 1s")) {
      String db = databaseNotOwnedBy(cluster, 0, "moving-");
      DatabaseStats before = result(cluster.databases.get(0).stats(db), DatabaseStats.class);
      int owner = cluster.indexOf(before.owner());
      int clientNode = owner == 1 ? 2 : 1;
      DatabaseSharding client = cluster.databases.get(clientNode);
      CompletableFuture<Committed> retried;
      try (Database handle = Database.open(dir.resolve(db)); StageControl control = StageControl.install(handle);
           LogLatch closing = LogLatch.on(ShardedDatabase.class, "closing database " + db + " ")) {
        Barrier held = control.barrier(CommitStage.VALIDATED, StageControl.any());
        write(client, db, "first");
        held.awaitArrival(Duration.ofSeconds(30));
        cluster.system(owner).terminate(); // coordinated shutdown: the shard is handed off, the entity drains
        closing.await(Duration.ofSeconds(30));
        retried = retryUntilCommitted(client, db, cluster.system(clientNode).executionContext());
        held.release();
        cluster.awaitTerminated(owner);
      }
      Committed c = result(retried);
      assertEquals(new CommitStamp(before.ownerEpoch(), 0), c.stamp(), "the old owner's epoch, from the record on disk");
      assertEquals("first", value(client, db));
      assertEquals(before.ownerEpoch() + 1, result(client.stats(db), DatabaseStats.class).ownerEpoch());
    }
  }

  /**
   * The owner is cut off (as if frozen or killed, from the others' view) while the first attempt
   * is held in its commit path; the client gets {@code NO_REPLY} and keeps retrying. The majority
   * downs it and the next owner waits for its lock; the cut-off owner, released, writes the first
   * attempt while it shuts down. The next owner then answers the retry from that record.
   */
  @Test
  void aRetryAfterTheOwnerWasCutOffAndDownedIsNotAppliedAgain() throws Exception {
    String fast = """
        pekko.remote.artery.advanced.test-mode = on
        pekko.cluster.failure-detector.heartbeat-interval = 200ms
        pekko.cluster.failure-detector.acceptable-heartbeat-pause = 1s
        pekko.cluster.split-brain-resolver.stable-after = 2s
        commitlane.cluster.ask-timeout = 2s
        pekko.coordinated-shutdown.default-phase-timeout = 1s
        pekko.coordinated-shutdown.phases.cluster-sharding-shutdown-region.timeout = 2s
        pekko.coordinated-shutdown.phases.cluster-exiting.timeout = 1s
        """;
    try (TestCluster cluster = TestCluster.start(3, dir, fast)) {
      String db = databaseNotOwnedBy(cluster, 0, "island-");
      DatabaseStats before = result(cluster.databases.get(0).stats(db), DatabaseStats.class);
      int owner = cluster.indexOf(before.owner());
      List<Integer> majority = new ArrayList<>(List.of(0, 1, 2));
      majority.remove((Integer) owner);
      DatabaseSharding client = cluster.databases.get(majority.get(0));
      CompletableFuture<Committed> retried;
      try (Database handle = Database.open(dir.resolve(db)); StageControl control = StageControl.install(handle);
           LogLatch nextOwnerWaits = LogLatch.on(ShardedDatabase.class, "database " + db + " is held by its previous owner")) {
        Barrier held = control.barrier(CommitStage.VALIDATED, StageControl.any());
        write(client, db, "first");
        held.awaitArrival(Duration.ofSeconds(30));
        for (int node : majority) {
          blackhole(cluster, node, owner);
        }
        retried = retryUntilCommitted(client, db, cluster.system(majority.get(0)).executionContext());
        nextOwnerWaits.await(Duration.ofSeconds(60)); // downed and removed; the next owner waits for the lock
        held.release(); // the old owner, still shutting down, writes the first attempt, closes, releases the lock
        cluster.awaitTerminated(owner);
      }
      Committed c = result(retried);
      assertEquals(new CommitStamp(before.ownerEpoch(), 0), c.stamp(), "the old owner's epoch, from the record on disk");
      assertEquals("first", value(client, db));
      assertEquals(before.ownerEpoch() + 1, result(client.stats(db), DatabaseStats.class).ownerEpoch());
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  private static CompletionStage<WriteReply> write(DatabaseSharding client, String db, String value) {
    return client.write(db, List.of(Mutation.put(b("k"), b(value))), LogEntries.of("orders", b(value)), ID);
  }

  /** Sends the write again with the same id, each time with a new value, until it is answered Committed; other answers are retryable. */
  private static CompletableFuture<Committed> retryUntilCommitted(DatabaseSharding client, String db, Executor executor) {
    CompletableFuture<Committed> done = new CompletableFuture<>();
    retry(client, db, 1, done, executor);
    return done;
  }

  private static void retry(DatabaseSharding client, String db, int attempt, CompletableFuture<Committed> done, Executor executor) {
    write(client, db, "retry-" + attempt).whenComplete((reply, err) -> {
      if (reply instanceof Committed c) {
        done.complete(c);
      } else if (attempt >= 3_000 || !(refusal(reply) instanceof Unavailable)) {
        done.completeExceptionally(new AssertionError("retry " + attempt + " got " + reply));
      } else {
        // A client's backoff: a closing owner answers at once, so do not spin.
        CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS, executor).execute(() -> retry(client, db, attempt + 1, done, executor));
      }
    });
  }

  private static String value(DatabaseSharding client, String db) {
    return s(result(client.get(db, Key.of(b("k"))), Values.class).values().get(0));
  }

  private static String databaseNotOwnedBy(TestCluster cluster, int node, String prefix) {
    for (int i = 0; ; i++) {
      DatabaseStats st = result(cluster.databases.get(node).stats(prefix + i), DatabaseStats.class);
      if (cluster.indexOf(st.owner()) != node) {
        return prefix + i;
      }
    }
  }

  /** Drop everything between nodes {@code a} and {@code b}, both ways (Artery test mode). */
  private static void blackhole(TestCluster cluster, int a, int b) throws Exception {
    RemoteActorRefProvider provider =
        (RemoteActorRefProvider) ((ExtendedActorSystem) cluster.system(a).classicSystem()).provider();
    provider.transport().managementCommand(new ThrottlerTransportAdapter.SetThrottle(cluster.address(b),
        ThrottlerTransportAdapter.bothDirection(), ThrottlerTransportAdapter.blackholeThrottleMode()));
  }
}
