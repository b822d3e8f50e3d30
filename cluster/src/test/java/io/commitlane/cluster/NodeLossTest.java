package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static io.commitlane.cluster.Await.s;
import static io.commitlane.cluster.Await.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Mutation;
import io.commitlane.actors.Key;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.remote.RemoteActorRefProvider;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Owners that stop or vanish with commits in flight, on a shared data directory. */
class NodeLossTest {
  @TempDir
  Path dir;

  /**
   * The owner is stopped while one commit is held on its executor and more are queued behind it.
   * Its shutdown hands the shard off: the entity drains what it admitted (all acknowledged, in
   * the old epoch), requests sent meanwhile wait in the regions and are served by the next owner,
   * and nothing acknowledged is missing afterwards.
   */
  @Test
  void stoppedOwnerDrainsAdmittedCommitsBeforeTheNextOwnerOpens() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, "")) {
      String db = databaseNotOwnedBy(cluster, 0, "inflight-"); // node 0 hosts the coordinator: keep it
      DatabaseStats before = result(cluster.databases.get(0).stats(db), DatabaseStats.class);
      int owner = cluster.indexOf(before.owner());
      List<Integer> clients = others(owner);
      Map<String, CompletionStage<WriteReply>> admitted = new TreeMap<>();
      Map<String, CompletionStage<WriteReply>> duringHandoff = new TreeMap<>();
      // A second handle of the path shares the owner's native database and its stage listeners.
      try (Database handle = Database.open(dir.resolve(db));
           StageControl control = StageControl.install(handle);
           LogLatch closing = LogLatch.on(ShardedDatabase.class, "closing database " + db + " ")) {
        Barrier held = control.barrier(CommitStage.VALIDATED, StageControl.any());
        for (int i = 0; i < 60; i++) {
          admitted.put("req-" + i, write(cluster, clients.get(i % 2), db, "req-" + i));
        }
        held.awaitArrival(Duration.ofSeconds(30)); // one commit holds the only executor; the rest queue behind it
        TestProbe<Object> probe = cluster.nodes.get(clients.get(0)).createTestProbe();
        probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
          assertEquals(60, (result(cluster.databases.get(0).stats(db), DatabaseStats.class)).inFlight());
          return null;
        });
        cluster.system(owner).terminate(); // coordinated shutdown: hand the shards off, leave
        closing.await(Duration.ofSeconds(30)); // the entity got the stop message and refuses new commands
        for (int i = 0; i < 20; i++) {
          duringHandoff.put("late-" + i, write(cluster, clients.get(i % 2), db, "late-" + i));
        }
        held.release();
        cluster.awaitTerminated(owner);
      }
      for (var e : admitted.entrySet()) {
        WriteReply r = result(e.getValue());
        assertTrue(r instanceof Committed c && c.stamp().ownerEpoch() == before.ownerEpoch(),
            e.getKey() + " was admitted before the stop: drained and acknowledged by the old owner, got " + r);
      }
      List<String> committedLate = new ArrayList<>();
      for (var e : duringHandoff.entrySet()) {
        WriteReply r = result(e.getValue());
        if (r instanceof Committed c) {
          assertEquals(before.ownerEpoch() + 1, c.stamp().ownerEpoch(), e.getKey() + " was served by the next owner");
          committedLate.add(e.getKey());
        } else {
          assertTrue(refusal(r) instanceof Unavailable u && u.outcomeKnown(), e.getKey() + ": " + r);
        }
      }
      assertTrue(!committedLate.isEmpty(), "requests sent during the handoff reach the next owner");
      Map<String, String> stored = readAll(cluster.databases.get(clients.get(0)), db, 60, 20);
      admitted.keySet().forEach(k -> assertEquals(k, stored.get(k), "acknowledged " + k + " is stored"));
      for (String k : duringHandoff.keySet()) {
        assertEquals(committedLate.contains(k) ? k : null, stored.get(k), k);
      }
    }
  }

  /**
   * The owner is cut off by a network partition (Artery's test blackhole) while a client on its
   * own node keeps committing to it. Clients elsewhere get {@code NO_REPLY} (retryable) instead of
   * a second owner: the split-brain resolver (keep-majority) makes the owner down itself, the
   * majority downs it, and the next owner opens only after the old one released the owner lock.
   * No commit of the old owner was sent after the new owner acknowledged one, and every
   * acknowledged commit, on either side, is stored.
   */
  @Test
  void partitionedOwnerIsDownedBeforeAnotherNodeWritesItsDatabase() throws Exception {
    String fast = """
        pekko.remote.artery.advanced.test-mode = on
        pekko.cluster.failure-detector.heartbeat-interval = 200ms
        pekko.cluster.failure-detector.acceptable-heartbeat-pause = 1s
        pekko.cluster.split-brain-resolver.stable-after = 2s
        commitlane.cluster.ask-timeout = 2s
        # The downed node reaches no one: do not wait out the default timeouts of its shutdown phases.
        pekko.coordinated-shutdown.default-phase-timeout = 1s
        pekko.coordinated-shutdown.phases.cluster-sharding-shutdown-region.timeout = 2s
        pekko.coordinated-shutdown.phases.cluster-exiting.timeout = 1s
        """;
    try (TestCluster cluster = TestCluster.start(3, dir, fast)) {
      String db = databaseNotOwnedBy(cluster, 0, "island-");
      DatabaseStats before = result(cluster.databases.get(0).stats(db), DatabaseStats.class);
      int owner = cluster.indexOf(before.owner());
      List<Integer> majority = others(owner);
      ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch warm = new CountDownLatch(30);
      List<Thread> clients = new ArrayList<>();
      for (int node : List.of(majority.get(0), majority.get(1), owner)) {
        clients.add(new Thread(() -> {
          ActorSystem<Void> system = cluster.system(node);
          for (int i = 0; !stop.get() && !system.whenTerminated().isCompleted(); i++) {
            String key = "n" + node + "-" + i;
            long sent = System.nanoTime();
            WriteReply r = result(cluster.databases.get(node).write(db, List.of(Mutation.put(b(key), b(key)))));
            outcomes.add(new Outcome(key, sent, System.nanoTime(), r));
            warm.countDown();
          }
        }, "client-n" + node));
      }
      clients.forEach(Thread::start);
      DatabaseStats after;
      try {
        assertTrue(warm.await(30, TimeUnit.SECONDS));
        for (int node : majority) {
          blackhole(cluster.system(node), cluster.address(owner));
        }
        cluster.awaitTerminated(owner); // the minority side downed itself and shut down
        TestProbe<Object> probe = cluster.nodes.get(majority.get(0)).createTestProbe();
        after = probe.awaitAssert(Duration.ofSeconds(45), Duration.ofMillis(200), () -> {
          DatabaseStats st = result(cluster.databases.get(majority.get(0)).stats(db), DatabaseStats.class);
          assertEquals(before.ownerEpoch() + 1, st.ownerEpoch());
          return st;
        });
        long since = outcomes.size();
        probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(100), () -> {
          assertTrue(outcomes.stream().skip(since).filter(o -> o.reply() instanceof Committed).count() >= 10);
          return null;
        });
      } finally {
        stop.set(true);
        for (Thread t : clients) {
          t.join(30_000);
        }
      }
      assertTrue(majority.stream().anyMatch(n -> cluster.address(n).toString().equals(after.owner())), after.owner());

      long firstNewAck = Long.MAX_VALUE;
      for (Outcome o : outcomes) {
        if (o.reply() instanceof Committed c && c.stamp().ownerEpoch() == after.ownerEpoch()) {
          firstNewAck = Math.min(firstNewAck, o.ackedAt());
        }
      }
      int noReply = 0;
      int old = 0;
      for (Outcome o : outcomes) {
        if (o.reply() instanceof Committed c && c.stamp().ownerEpoch() == before.ownerEpoch()) {
          old++;
          assertTrue(o.sentAt() < firstNewAck, o.key() + " was committed by the old owner after the new owner had acknowledged a commit");
        }
        if (refusal(o.reply()) instanceof Unavailable u && !u.outcomeKnown()) {
          noReply++;
        }
      }
      assertTrue(old >= 30 && noReply >= 1, "old-owner commits " + old + ", unknown outcomes " + noReply);

      DatabaseSharding reader = cluster.databases.get(majority.get(0));
      List<Outcome> all = new ArrayList<>(outcomes);
      List<byte[]> values = new ArrayList<>();
      for (int from = 0; from < all.size(); from += 500) {
        List<Key> batch = all.subList(from, Math.min(all.size(), from + 500)).stream().map(o -> Key.of(b(o.key()))).toList();
        values.addAll((result(reader.multiGet(db, batch), Values.class)).values());
      }
      for (int i = 0; i < all.size(); i++) {
        Outcome o = all.get(i);
        byte[] stored = values.get(i);
        if (o.reply() instanceof Committed) {
          assertEquals(o.key(), s(stored), "acknowledged " + o.key() + " is stored");
        } else if (refusal(o.reply()) instanceof Unavailable u && u.outcomeKnown()) {
          assertNull(stored, o.key() + " was answered " + u.reason() + ": nothing written");
        }
      }
    }
  }

  private record Outcome(String key, long sentAt, long ackedAt, WriteReply reply) {}

  /** Drop everything between {@code system} and {@code other}, both ways (Artery test mode). */
  private static void blackhole(ActorSystem<?> system, Address other) throws Exception {
    RemoteActorRefProvider provider = (RemoteActorRefProvider) ((ExtendedActorSystem) system.classicSystem()).provider();
    provider.transport().managementCommand(new ThrottlerTransportAdapter.SetThrottle(other, ThrottlerTransportAdapter.bothDirection(),
        ThrottlerTransportAdapter.blackholeThrottleMode()));
  }

  private static String databaseNotOwnedBy(TestCluster cluster, int node, String prefix) {
    for (int i = 0; ; i++) {
      DatabaseStats st = result(cluster.databases.get(node).stats(prefix + i), DatabaseStats.class);
      if (cluster.indexOf(st.owner()) != node) {
        return prefix + i;
      }
    }
  }

  private static List<Integer> others(int node) {
    List<Integer> all = new ArrayList<>(List.of(0, 1, 2));
    all.remove(Integer.valueOf(node));
    return all;
  }

  private static CompletionStage<WriteReply> write(TestCluster cluster, int node, String db, String key) {
    return cluster.databases.get(node).write(db, List.of(Mutation.put(b(key), b(key))));
  }

  private static Map<String, String> readAll(DatabaseSharding reader, String db, int reqs, int lates) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < reqs; i++) {
      names.add("req-" + i);
    }
    for (int i = 0; i < lates; i++) {
      names.add("late-" + i);
    }
    Values v = result(reader.multiGet(db, names.stream().map(n -> Key.of(b(n))).toList()), Values.class);
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i < names.size(); i++) {
      out.put(names.get(i), s(v.values().get(i)));
    }
    return out;
  }
}
