package io.commitlane.cluster;

import io.commitlane.cluster.internal.owner.OwnerLock;
import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static io.commitlane.cluster.Await.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Mutation;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.actors.ChangeRecord;
import io.commitlane.actors.CommitStamp;
import io.commitlane.actors.DatabaseProtocol.BackedUp;
import io.commitlane.actors.DatabaseProtocol.CheckpointTaken;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.Database;
import io.commitlane.testkit.History;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three nodes in one JVM, one cluster, one shared data root: requests from every node reach the one owner. */
class ClusterRoutingTest {
  @TempDir
  static Path dir;
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = TestCluster.start(3, dir, "");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void commitsFromEveryNodeReachTheOneOwner() {
    List<String> names = List.of("routed-0", "routed-1", "routed-2", "routed-3", "routed-4", "routed-5");
    for (String db : names) {
      for (int n = 0; n < 3; n++) {
        result(cluster.databases.get(n).write(db, List.of(Mutation.put(b("from-" + n), b(db + "@" + n)))), Committed.class);
      }
    }
    Set<String> owners = new HashSet<>();
    for (String db : names) {
      DatabaseStats first = null;
      for (int n = 0; n < 3; n++) {
        Values v = result(cluster.databases.get(n).multiGet(db, List.of(Key.of(b("from-0")), Key.of(b("from-1")), Key.of(b("from-2")))), Values.class);
        assertEquals(List.of(db + "@0", db + "@1", db + "@2"), v.values().stream().map(Await::s).toList(), "read from node " + n);
        DatabaseStats st = result(cluster.databases.get(n).stats(db), DatabaseStats.class);
        if (first == null) {
          first = st;
        }
        // One owner per database, whichever node asks: same address, same epoch, all three commits counted there.
        assertEquals(first.owner(), st.owner(), db);
        assertEquals(1, st.ownerEpoch(), db);
        assertEquals(3, st.committed(), db);
      }
      owners.add(first.owner());
      // Each database lives in its own directory under the shared root, locked by its owner.
      assertTrue(Files.exists(dir.resolve(db).resolve(OwnerLock.FILE_NAME)), db);
      assertEquals(first.owner(), OwnerLock.lastOwner(dir.resolve(db)));
    }
    assertTrue(owners.size() >= 2, "six databases over three nodes should not all land on one: " + owners);
  }

  @Test
  void conditionalCommitsFromAllNodesFormASerializableHistory() throws Exception {
    String db = "counters";
    List<String> keys = List.of("a", "b");
    History history = new History();
    AtomicInteger unique = new AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    List<Throwable> errors = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      for (int w = 0; w < 2; w++) {
        DatabaseSharding client = cluster.databases.get(n);
        String id = "n" + n + "w" + w;
        workers.add(new Thread(() -> {
          try {
            Map<String, byte[]> seen = new HashMap<>();
            for (int i = 0; i < 25; i++) {
              String key = keys.get((i + id.hashCode()) & 1);
              byte[] expected = seen.get(key);
              String value = id + "-" + unique.incrementAndGet();
              WriteReply r = result(client.compareAndWrite(db, List.of(Expectation.value(b(key), expected)),
                  List.of(Mutation.put(b(key), b(value)))));
              Map<String, String> reads = new HashMap<>();
              reads.put(key, s(expected));
              if (r instanceof Committed c) {
                history.committed(id + "#" + i, reads, Map.of(key, value), order(c.stamp()));
                seen.put(key, b(value));
              } else if (r instanceof Conflicted c) {
                history.failed(id + "#" + i, reads, Map.of(key, value));
                if (!c.actual().isEmpty()) {
                  seen.put(key, c.actual().get(0).value()); // what the key holds now: the next expectation
                }
              } else {
                throw new AssertionError("unexpected reply " + r);
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
    for (Thread t : workers) {
      t.join(120_000);
    }
    assertEquals(List.of(), errors);
    Values finals = result(cluster.databases.get(1).multiGet(db, List.of(Key.of(b("a")), Key.of(b("b")))), Values.class);
    Map<String, String> state = new HashMap<>();
    state.put("a", s(finals.values().get(0)));
    state.put("b", s(finals.values().get(1)));
    assertEquals(List.of(), history.check(state));
    long committed = history.attempts().stream().filter(History.Attempt::committed).count();
    long conflicted = history.attempts().size() - committed;
    assertTrue(committed >= 2, "some commits must succeed");
    assertTrue(conflicted > 0, "six workers on two keys must meet stale expectations: " + conflicted);
  }

  @Test
  void changeFeedIsConsumedOnAnotherNode() {
    // Find a database owned elsewhere than on node 2, the consumer.
    String db = null;
    for (int i = 0; db == null; i++) {
      DatabaseStats st = result(cluster.databases.get(0).stats("feed-" + i), DatabaseStats.class);
      if (cluster.indexOf(st.owner()) != 2) {
        db = "feed-" + i;
      }
    }
    // The consumer starts first: before any commit created the log, it is refused unless the feed creates it.
    Failed unknown = result(cluster.databases.get(2).changeFeed(db, "orders", -1), Failed.class);
    assertEquals(io.commitlane.actors.DatabaseProtocol.FailureReason.UNKNOWN_LOG, unknown.reason());
    FeedOpened opened = result(cluster.databases.get(2).changeFeed(db, "orders", -1, true), FeedOpened.class);
    var records = opened.feed().getSource().take(5).runWith(Sink.seq(), cluster.system(2));
    List<Long> positions = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Committed c = result(cluster.databases.get(1).write(db, List.of(Mutation.put(b("order-" + i), b("paid"))),
          LogEntries.of("orders", b("order-" + i + " paid"))), Committed.class);
      positions.add(c.logPosition());
    }
    List<ChangeRecord> got = result(records);
    assertEquals(List.of("order-0 paid", "order-1 paid", "order-2 paid", "order-3 paid", "order-4 paid"),
        got.stream().map(r -> s(r.entries().get(0))).toList());
    assertEquals(positions, got.stream().map(ChangeRecord::position).toList());
    // Resuming after the third record's position yields the rest only.
    FeedOpened resumed = result(cluster.databases.get(2).changeFeed(db, "orders", positions.get(2)), FeedOpened.class);
    List<ChangeRecord> rest = result(resumed.feed().getSource().take(2).runWith(Sink.seq(), cluster.system(2)));
    assertEquals(positions.subList(3, 5), rest.stream().map(ChangeRecord::position).toList());
  }

  @Test
  void badRequestsFailWithTypedErrorsBeforeAnythingIsSent() {
    DatabaseSharding client = cluster.databases.get(0);
    InvalidRequestException name = assertThrows(InvalidRequestException.class, () -> client.entityRef("../escape"));
    assertTrue(name.getMessage().contains("database name \"../escape\" is invalid"), name.getMessage());
    assertThrows(InvalidRequestException.class, () -> client.write("ok", List.of()));
    assertThrows(InvalidRequestException.class, () -> Mutation.put(b("k"), null));
    assertThrows(InvalidRequestException.class, () -> Mutation.put("bad/store", b("k"), b("v")));
    assertThrows(InvalidRequestException.class, () -> client.changeFeed("ok", "", -1));
  }

  @Test
  void readsOfMissingKeysAndStoresCreateNothing() {
    DatabaseSharding client = cluster.databases.get(1);
    Values v = result(client.multiGet("reads", List.of(Key.of(b("none")), Key.of("no-such-store", b("k")))), Values.class);
    assertEquals(2, v.values().size());
    assertEquals(null, v.values().get(0));
    assertEquals(null, v.values().get(1));
    Committed c = result(client.write("reads", List.of(Mutation.put("users", b("alice"), b("admin")))), Committed.class);
    assertNotEquals(0, c.stamp().version());
    assertEquals("admin", s((result(cluster.databases.get(2).get("reads", Key.of("users", b("alice"))), Values.class)).values().get(0)));
  }

  /** Backups and checkpoints are taken by the owner, whichever node asks; their replies cross nodes. */
  @Test
  void aBackupAndACheckpointAreTakenOnTheOwnerWhicheverNodeAsks() throws Exception {
    String db = "copied";
    result(cluster.databases.get(0).write(db, List.of(Mutation.put(b("k"), b("v")))), Committed.class);
    Path backups = dir.resolve("copied-backups");
    Duration wait = Duration.ofMinutes(1);
    for (int n = 0; n < 3; n++) {
      BackedUp backedUp = result(cluster.databases.get(n).backup(db, backups, wait), BackedUp.class);
      assertEquals(n + 1, backedUp.backup().id(), "backups of one database, one directory, from node " + n);
      assertTrue(backedUp.backup().complete());
      CheckpointTaken taken = result(cluster.databases.get(n).checkpoint(db, dir.resolve("copied-" + n), wait), CheckpointTaken.class);
      assertEquals(dir.resolve("copied-" + n).toAbsolutePath().normalize(), taken.checkpoint().path());
    }
    Failed exists = result(cluster.databases.get(1).checkpoint(db, dir.resolve("copied-0"), wait), Failed.class);
    assertEquals(FailureReason.INVALID_REQUEST, exists.reason(), exists.toString());
    BackupStore.at(backups).verify(3, false);
    try (Database copy = Database.openReadOnly(dir.resolve("copied-2"))) {
      assertEquals("v", s(copy.get(b("k"))));
    }
  }

  /** A commit stamp as one number that orders commits of a database across owners. */
  static long order(CommitStamp stamp) {
    return (stamp.ownerEpoch() << 40) | stamp.version();
  }
}
