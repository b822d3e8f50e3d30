package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static io.commitlane.cluster.Await.s;
import static io.commitlane.cluster.Await.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Mutation;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.testkit.History;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard handed off while clients commit: the owner leaves the cluster gracefully in the middle
 * of a burst of conditional commits from the two other nodes. No acknowledged commit is lost and
 * nothing is written twice: the history of every attempt, checked by the testkit's {@link
 * History}, is serializable in commit-stamp order and explains the final state.
 *
 * <p>Sharding delivers at most once: a region drops messages it buffered for a shard in handoff
 * (to keep their order), so a few requests can go unanswered ({@code NO_REPLY}, outcome unknown).
 * Each written value is unique and only conditional commits touch these keys, so an unanswered
 * attempt was applied exactly when a committed attempt later read its value, or it is final; it
 * enters the history that way, just before its reader.
 */
class HandoffTest {
  @TempDir
  Path dir;

  @Test
  void ownerLeavingDuringABurstLosesNoAcknowledgedCommitAndDoublesNone() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, "commitlane.cluster.ask-timeout = 5s")) {
      String db = "handoff";
      DatabaseStats before = result(cluster.databases.get(0).stats(db), DatabaseStats.class);
      int owner = cluster.indexOf(before.owner());
      List<Integer> clients = new ArrayList<>(List.of(0, 1, 2));
      clients.remove(Integer.valueOf(owner));

      List<String> keys = List.of("k0", "k1", "k2", "k3");
      History history = new History();
      Map<String, Integer> outcomes = new ConcurrentHashMap<>();
      List<History.Attempt> unanswered = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicInteger unique = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch beforeLeave = new CountDownLatch(40);
      AtomicReference<CountDownLatch> afterLeave = new AtomicReference<>(); // set once the owner is gone
      List<Throwable> errors = new ArrayList<>();
      List<Thread> workers = new ArrayList<>();
      for (int client : clients) {
        for (int w = 0; w < 2; w++) {
          DatabaseSharding databases = cluster.databases.get(client);
          String id = "n" + client + "w" + w;
          workers.add(new Thread(() -> {
            Map<String, byte[]> seen = new HashMap<>();
            try {
              for (int i = 0; !stop.get(); i++) {
                String key = keys.get((i + id.hashCode()) & 3);
                byte[] expected = seen.get(key);
                String value = id + "-" + unique.incrementAndGet();
                Map<String, String> reads = new HashMap<>();
                reads.put(key, s(expected));
                WriteReply r = result(databases.compareAndWrite(db, List.of(Expectation.value(b(key), expected)),
                    List.of(Mutation.put(b(key), b(value)))));
                outcomes.merge(r.getClass().getSimpleName() + (refusal(r) instanceof Unavailable u ? " " + u.reason() : ""), 1, Integer::sum);
                if (r instanceof Committed c) {
                  history.committed(id + "#" + i, reads, Map.of(key, value), 2 * ClusterRoutingTest.order(c.stamp()));
                  seen.put(key, b(value));
                  beforeLeave.countDown();
                  CountDownLatch after = afterLeave.get();
                  if (after != null) {
                    after.countDown();
                  }
                } else if (refusal(r) instanceof Unavailable u && !u.outcomeKnown()) {
                  unanswered.add(new History.Attempt(id + "#" + i, reads, Map.of(key, value), false, -1));
                  seen.remove(key); // the next attempt learns what the key holds
                } else {
                  history.failed(id + "#" + i, reads, Map.of(key, value)); // nothing was written
                  if (r instanceof Conflicted c && !c.actual().isEmpty()) {
                    seen.put(key, c.actual().get(0).value());
                  }
                }
              }
            } catch (Throwable t) {
              synchronized (errors) {
                errors.add(t);
              }
            }
          }, "worker-" + id));
        }
      }
      workers.forEach(Thread::start);
      try {
        assertTrue(beforeLeave.await(60, TimeUnit.SECONDS), "40 commits before the owner leaves");
        Cluster.get(cluster.system(owner)).manager().tell(Leave.create(cluster.address(owner)));
        cluster.awaitTerminated(owner); // left the cluster: its shards were handed off first
        CountDownLatch after = new CountDownLatch(40); // counted from here on: commits on the new owner
        afterLeave.set(after);
        assertTrue(after.await(60, TimeUnit.SECONDS), "40 commits after the owner left");
      } finally {
        stop.set(true);
        for (Thread t : workers) {
          t.join(60_000);
        }
      }
      assertEquals(List.of(), errors);

      DatabaseStats after = result(cluster.databases.get(clients.get(0)).stats(db), DatabaseStats.class);
      assertNotEquals(before.owner(), after.owner(), "the database moved");
      assertEquals(before.ownerEpoch() + 1, after.ownerEpoch(), "exactly one new owner, after the old one released the lock");
      long oldEpoch = history.attempts().stream().filter(a -> a.committed() && a.version() >> 41 == before.ownerEpoch()).count();
      long newEpoch = history.attempts().stream().filter(a -> a.committed() && a.version() >> 41 == after.ownerEpoch()).count();
      assertTrue(oldEpoch >= 40 && newEpoch >= 1, "commits on both owners: " + oldEpoch + " then " + newEpoch + ", " + outcomes);

      List<Key> all = keys.stream().map(k -> Key.of(b(k))).toList();
      Values finals = result(cluster.databases.get(clients.get(1)).multiGet(db, all), Values.class);
      Map<String, String> state = new HashMap<>();
      for (int i = 0; i < keys.size(); i++) {
        state.put(keys.get(i), s(finals.values().get(i)));
      }
      int applied = placeUnanswered(history, unanswered, state);
      assertEquals(List.of(), history.check(state), "outcomes " + outcomes + ", unanswered but applied " + applied);
    }
  }

  /**
   * Put each unanswered attempt into the history: committed just before the committed attempt
   * that read its value (versions are doubled, so the odd version in between is free), or after
   * everything when its value is final; failed when nothing ever saw its value. Returns how many
   * were applied.
   */
  static int placeUnanswered(History history, List<History.Attempt> unanswered, Map<String, String> finalState) {
    Map<String, History.Attempt> readerOf = new HashMap<>();
    long last = 0;
    for (History.Attempt a : history.attempts()) {
      if (a.committed()) {
        a.reads().forEach((k, v) -> readerOf.put(k + "=" + v, a));
        last = Math.max(last, a.version());
      }
    }
    int applied = 0;
    for (History.Attempt u : unanswered) {
      var write = u.writes().entrySet().iterator().next();
      History.Attempt reader = readerOf.get(write.getKey() + "=" + write.getValue());
      if (reader != null) {
        history.committed(u.id(), u.reads(), u.writes(), reader.version() - 1);
        applied++;
      } else if (write.getValue().equals(finalState.get(write.getKey()))) {
        history.committed(u.id(), u.reads(), u.writes(), last + 1);
        applied++;
      } else {
        history.failed(u.id(), u.reads(), u.writes());
      }
    }
    return applied;
  }
}
