package io.commitlane.replication.actors;

import io.commitlane.testsupport.LoopbackPorts;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.projection.Projection;
import io.commitlane.actors.projection.ProjectionBatch;
import io.commitlane.actors.projection.ProjectionControl;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaLogRecord;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import io.commitlane.replication.ReplicationGroup;




import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Projections of a replicated database on a three-node loopback group: a runner on a follower
 * counts every record once, a runner on another node goes on from the stored commit index, and of
 * two runners on two nodes the one whose commit comes second in the log conflicts and goes on from
 * the winner's position. Each test uses a log and a projection of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicatedProjectionTest {
  private static final int KEYS = 5;

  @TempDir static Path dir;
  private final List<ReplicaNode> nodes = new ArrayList<>();
  private final List<ReplicatedDatabase> replicas = new ArrayList<>();
  private ActorTestKit kit;

  @BeforeAll
  void start() {
    List<ReplicaPeer> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      peers.add(new ReplicaPeer("n" + i, "127.0.0.1", LoopbackPorts.freePort()));
    }
    ReplicationGroup group = new ReplicationGroup("shop", peers);
    kit = ActorTestKit.create("projections");
    for (ReplicaPeer peer : peers) {
      ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id()))
          .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)));
      nodes.add(node);
      replicas.add(node.host(group));
    }
  }

  @AfterAll
  void stop() {
    kit.shutdownTestKit();
    nodes.forEach(ReplicaNode::close);
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Orders {@code from..to} of log {@code log}, each its own commit with one entry {@code k<i % 5>}; the last one's index. */
  private long place(String log, int from, int to) throws Exception {
    long index = -1;
    for (int i = from; i <= to; i++) {
      while (true) {
        ReplicatedTransaction t = replicas.get(0).begin();
        t.put((log + "/" + i).getBytes(UTF_8), "placed".getBytes(UTF_8)).log(log, ("k" + (i % KEYS)).getBytes(UTF_8));
        try {
          index = await(t.commit((log + "-" + i).getBytes(UTF_8))).index(); // an id: a resend after no leader applies once
          break;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof ReplicaUnavailableException)) {
            throw e;
          }
        }
      }
    }
    return index;
  }

  /** Counts each record's key under {@code <model>/k<n>} in store "model". */
  private static ProjectionHandler<ReplicaLogRecord, ReplicatedTransaction> counting(String model) {
    return (txn, records) -> {
      for (ReplicaLogRecord r : records) {
        byte[] key = (model + "/" + new String(r.entries().get(0), UTF_8)).getBytes(UTF_8);
        byte[] v = txn.get("model", key);
        txn.put("model", key, Long.toString(v == null ? 1 : Long.parseLong(new String(v, UTF_8)) + 1).getBytes(UTF_8));
      }
    };
  }

  /** The counts replica {@code r} holds, after a read barrier. */
  private Map<String, Long> counts(int r, String model) throws Exception {
    ReplicatedDatabase db = replicas.get(r);
    await(db.sync());
    Map<String, Long> out = new TreeMap<>();
    for (int k = 0; k < KEYS; k++) {
      byte[] v = await(db.get("model", (model + "/k" + k).getBytes(UTF_8), ReadConsistency.LOCAL));
      if (v != null) {
        out.put("k" + k, Long.parseLong(new String(v, UTF_8)));
      }
    }
    return out;
  }

  private static Map<String, Long> expected(int from, int to) {
    Map<String, Long> out = new TreeMap<>();
    for (int i = from; i <= to; i++) {
      out.merge("k" + (i % KEYS), 1L, Long::sum);
    }
    return out;
  }

  private Projection<ReplicaLogRecord, ReplicatedTransaction> projection(int replica, String log,
      ProjectionHandler<ReplicaLogRecord, ReplicatedTransaction> handler) {
    return ReplicatedProjection.of(replicas.get(replica), log + "-counts", log, handler)
        .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(4));
  }

  /** Runs until the batch through {@code index} committed; its batches. */
  private List<ProjectionBatch<ReplicaLogRecord>> runThrough(Projection<ReplicaLogRecord, ReplicatedTransaction> p, long index)
      throws Exception {
    Pair<ProjectionControl, CompletionStage<List<ProjectionBatch<ReplicaLogRecord>>>> run = p.source()
        .takeWhile(b -> b.position() != index, true).toMat(Sink.seq(), Keep.both()).run(kit.system());
    List<ProjectionBatch<ReplicaLogRecord>> batches = await(run.second());
    assertEquals(Done.getInstance(), await(run.first().whenStopped()));
    return batches;
  }

  @Test
  void aProjectionOnAFollowerCountsEveryRecordOnceAndAnotherNodeGoesOnFromItsIndex() throws Exception {
    long twenty = place("orders", 1, 20);
    List<ProjectionBatch<ReplicaLogRecord>> first = runThrough(projection(1, "orders", counting("a")), twenty);
    assertEquals(-1, first.get(0).after());
    assertEquals(20, first.stream().mapToInt(b -> b.records().size()).sum());
    long after = -1;
    for (ProjectionBatch<ReplicaLogRecord> b : first) {
      assertEquals(after, b.after(), "contiguous");
      assertTrue(b.records().size() <= 4);
      after = b.position();
    }
    assertEquals(expected(1, 20), counts(1, "a"));
    assertEquals(expected(1, 20), counts(0, "a"), "applied on every replica");

    long thirty = place("orders", 21, 30);
    List<ProjectionBatch<ReplicaLogRecord>> second = runThrough(projection(2, "orders", counting("a")), thirty);
    assertEquals(twenty, second.get(0).after(), "another node's runner reads the stored commit index and goes on after it");
    assertEquals(10, second.stream().mapToInt(b -> b.records().size()).sum());
    assertEquals(expected(1, 30), counts(2, "a"));
  }

  @Test
  void ofTwoRunnersOnTwoNodesTheOneCommittingSecondConflictsAndGoesOnFromTheWinner() throws Exception {
    long five = place("returns", 1, 5);
    CompletableFuture<Void> gate = new CompletableFuture<>();
    CompletableFuture<Void> aHandled = new CompletableFuture<>();
    ProjectionHandler<ReplicaLogRecord, ReplicatedTransaction> counting = counting("r");
    ProjectionHandler<ReplicaLogRecord, ReplicatedTransaction> held = (txn, records) -> {
      counting.handle(txn, records);
      aHandled.complete(null);
      gate.get(30, TimeUnit.SECONDS); // A's first batch is handled from position -1, and waits here to be committed
    };
    Pair<ProjectionControl, SinkQueueWithCancel<ProjectionBatch<ReplicaLogRecord>>> a = projection(1, "returns", held)
        .source().toMat(Sink.queue(), Keep.both()).run(kit.system());
    await(aHandled);

    Pair<ProjectionControl, SinkQueueWithCancel<ProjectionBatch<ReplicaLogRecord>>> b = projection(2, "returns", counting)
        .source().toMat(Sink.queue(), Keep.both()).run(kit.system());
    ProjectionBatch<ReplicaLogRecord> bFirst = await(b.second().pull()).orElseThrow();
    assertEquals(-1, bFirst.after());
    assertTrue(bFirst.position() <= five);
    assertEquals(Done.getInstance(), await(b.first().stop()));
    long bPosition = b.first().status().position();

    gate.complete(null); // A's commit reaches the log after B's: every replica finds its position read stale
    long six = place("returns", 6, 6);
    ProjectionBatch<ReplicaLogRecord> aNext = await(a.second().pull()).orElseThrow();
    assertEquals(bPosition, aNext.after(), "A read the stored index again and went on after B's batch");
    while (aNext.position() != six) {
      aNext = await(a.second().pull()).orElseThrow();
    }
    assertEquals(1, a.first().status().conflicts(), a.first().status().toString());
    assertNull(a.first().status().lastError());
    assertEquals(Done.getInstance(), await(a.first().stop()));
    assertEquals(expected(1, 6), counts(0, "r"), "each record counted once");
  }

  @Test
  void docsExample() throws Exception {
    long sold = place("sales", 1, 4); // entries k1 k2 k3 k4: the item sold
    ReplicatedDatabase replica = replicas.get(2);
    org.apache.pekko.actor.typed.ActorSystem<Void> system = kit.system();
    // docs: replicated
    Projection<ReplicaLogRecord, ReplicatedTransaction> sales = ReplicatedProjection.of(replica, "sales-per-item", "sales",
        (txn, records) -> {
          for (ReplicaLogRecord record : records) {              // positions are commit indexes, the same on every replica
            byte[] item = record.entries().get(0);
            byte[] n = txn.get("sales-per-item", item);           // this replica's snapshot; every replica validates the read
            long next = n == null ? 1 : Long.parseLong(new String(n, UTF_8)) + 1;
            txn.put("sales-per-item", item, Long.toString(next).getBytes(UTF_8));
          }
        });
    ProjectionControl running = sales.run(system);              // on any node with a replica; it can move to another
    // end docs: replicated
    await(running.whenThrough(sold));
    await(running.stop());
    await(replica.sync());
    for (int i = 1; i <= 4; i++) {
      assertEquals("1", new String(await(replica.get("sales-per-item", ("k" + i).getBytes(UTF_8), ReadConsistency.LOCAL)), UTF_8));
    }
  }

  @Test
  void theDocsShowTheReplicatedSnippetAsItRuns() {
    io.commitlane.testsupport.DocSnippets.assertShown(
        Path.of("src/test/java/io/commitlane/replication/actors/ReplicatedProjectionTest.java"),
        io.commitlane.testsupport.DocSnippets.root().resolve("docs/projections.md"), "replicated");
  }

  @Test
  void aClientHandleHasNoFeedToProject() throws Exception {
    try (ReplicatedDatabase client = ReplicatedDatabase.connect(replicas.get(0).group(), Duration.ofSeconds(5))) {
      assertThrows(IllegalArgumentException.class, () -> ReplicatedProjection.of(client, "x", "orders", (t, r) -> { }));
    }
    assertThrows(IllegalArgumentException.class, () -> ReplicatedProjection.of(replicas.get(0), "x", ".orders", (t, r) -> { }));
    assertThrows(IllegalArgumentException.class, () -> ReplicatedProjection.of(replicas.get(0), "a b", "orders", (t, r) -> { }));
  }
}
