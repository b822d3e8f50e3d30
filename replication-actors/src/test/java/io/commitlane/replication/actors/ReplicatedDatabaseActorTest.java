package io.commitlane.replication.actors;

import io.commitlane.testsupport.LoopbackPorts;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ChangeRecord;
import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.CreateStore;
import io.commitlane.actors.DatabaseProtocol.DropStore;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.FeedReply;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.ScanRange;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.KeyValue;




import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * One three-node group and one actor per replica for the whole class; each test uses keys of its
 * own. Requests go to followers' actors on purpose: a commit through one must reach the leader,
 * and a read through another must see it at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicatedDatabaseActorTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private final List<ReplicaNode> nodes = new ArrayList<>();
  private final List<ReplicatedDatabase> replicas = new ArrayList<>();
  private final List<ActorRef<Request>> actors = new ArrayList<>();
  private ActorTestKit kit;
  private long correlation;

  @BeforeAll
  void start() {
    List<ReplicaPeer> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      peers.add(new ReplicaPeer("n" + i, "127.0.0.1", LoopbackPorts.freePort()));
    }
    ReplicationGroup group = new ReplicationGroup("orders", peers);
    kit = ActorTestKit.create("replicated");
    for (ReplicaPeer peer : peers) {
      ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id()))
          .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)));
      nodes.add(node);
      ReplicatedDatabase db = node.host(group);
      replicas.add(db);
      actors.add(kit.spawn(ReplicatedDatabaseActor.create(db), "orders-" + peer.id()));
    }
  }

  @AfterAll
  void stop() {
    kit.shutdownTestKit();
    nodes.forEach(ReplicaNode::close);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private <R extends Reply> R ask(int replica, Class<R> type, java.util.function.Function<ActorRef<R>, Request> request) {
    TestProbe<R> probe = kit.createTestProbe(type);
    actors.get(replica).tell(request.apply(probe.ref()));
    R reply = probe.receiveMessage(WAIT);
    probe.expectNoMessage(Duration.ofMillis(20)); // exactly one reply
    return reply;
  }

  private Committed write(int replica, List<Mutation> mutations, LogEntries log, RequestId id) {
    WriteReply reply = ask(replica, WriteReply.class, r -> new Write(mutations, log, id, ++correlation, r));
    return assertInstanceOf(Committed.class, reply, () -> "written: " + reply);
  }

  private byte[] get(int replica, String store, String key) {
    ReadReply reply = ask(replica, ReadReply.class, r -> new Get(Key.of(store, b(key)), ++correlation, r));
    return assertInstanceOf(Values.class, reply, () -> "read: " + reply).values().get(0);
  }

  /** The first follower of the current leader, after the group has one. */
  private int follower(int nth) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      for (int i = 0; i < 3; i++) {
        if (replicas.get(i).status().role().equals("LEADER")) {
          return (i + nth) % 3;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no leader within " + WAIT);
      }
      Thread.sleep(20); // an election runs on the replicas' own timers
    }
  }

  @Test
  void aWriteThroughOneFollowersActorIsReadAtOnceThroughTheOtherFollowers() throws Exception {
    int writer = follower(1);
    int reader = follower(2);
    Committed committed = write(writer, List.of(Mutation.put(b("alice"), b("100")), Mutation.put("ledger", b("a/1"), b("opened"))),
        LogEntries.of("ledger", b("alice opened")), RequestId.of("open-alice"));
    assertTrue(committed.logPosition() > 0, "a logged write's position is its index in the group's log");
    assertEquals(committed.logPosition(), committed.stamp().version());

    assertArrayEquals(b("100"), get(reader, null, "alice"), "a linearizable read on another follower sees the acknowledged write");
    ReadReply both = ask(reader, ReadReply.class, r -> new MultiGet(List.of(Key.of(b("alice")), Key.of("ledger", b("a/1")),
        Key.of("nowhere", b("x"))), ++correlation, r));
    List<byte[]> values = assertInstanceOf(Values.class, both).values();
    assertArrayEquals(b("opened"), values.get(1));
    assertNull(values.get(2), "a store nobody wrote reads as empty");

    Committed again = write(reader, List.of(Mutation.put(b("alice"), b("100"))), LogEntries.of("ledger", b("alice opened")),
        RequestId.of("open-alice"));
    assertEquals(committed.logPosition(), again.logPosition(), "a resent request id is answered from the first commit");
    Committed removed = write(writer, List.of(Mutation.remove(b("alice"))), null, null);
    assertEquals(-1, removed.logPosition(), "a write without a log record has no log position");
    assertNull(get(reader, null, "alice"));
  }

  @Test
  void aConditionalWriteCommitsOnlyWhileItsExpectationsHold() throws Exception {
    int f = follower(1);
    WriteReply first = ask(f, WriteReply.class, r -> new ConditionalWrite(List.of(Expectation.absent(b("seat/12"))),
        List.of(Mutation.put(b("seat/12"), b("ann"))), null, ++correlation, r));
    assertInstanceOf(Committed.class, first);

    WriteReply second = ask(follower(2), WriteReply.class, r -> new ConditionalWrite(List.of(Expectation.absent(b("seat/12"))),
        List.of(Mutation.put(b("seat/12"), b("bob"))), null, ++correlation, r));
    Conflicted taken = assertInstanceOf(Conflicted.class, second, () -> "the seat is taken: " + second);
    assertEquals(ConflictCause.EXPECTATIONS, taken.cause());
    assertArrayEquals(b("ann"), taken.actual().get(0).value(), "the conflict says what the key holds now");

    WriteReply swap = ask(f, WriteReply.class, r -> new ConditionalWrite(List.of(Expectation.value(b("seat/12"), b("ann"))),
        List.of(Mutation.put(b("seat/12"), b("bob"))), null, ++correlation, r));
    assertInstanceOf(Committed.class, swap);
    assertArrayEquals(b("bob"), get(follower(2), null, "seat/12"));
  }

  /**
   * A follower learns that a commit is committed only from the leader's next heartbeat, so its
   * replica trails its own acknowledged writes. A conditional write's expectations are checked at
   * the commit's place in the log, not in that replica: each step of a chain of read-modify-writes
   * commits at once, even with LOCAL reads (no read barrier to wait for at all), and a stale
   * expectation is refused at the leader and at a follower alike.
   */
  @Test
  void aFollowersReadModifyWritesSeeTheLogNotItsTrailingReplica() throws Exception {
    int f = follower(1);
    ActorRef<Request> local = kit.spawn(ReplicatedDatabaseActor.create(replicas.get(f),
        ReplicatedActorSettings.defaults().withReads(ReadConsistency.LOCAL)), "orders-local-reads");
    write(f, List.of(Mutation.put(b("stock/pen"), b("0"))), null, null);
    for (int i = 0; i < 20; i++) {
      byte[] now = b(Integer.toString(i));
      byte[] next = b(Integer.toString(i + 1));
      int step = i;
      TestProbe<WriteReply> probe = kit.createTestProbe(WriteReply.class);
      local.tell(new ConditionalWrite(List.of(Expectation.value(b("stock/pen"), now)), List.of(Mutation.put(b("stock/pen"), next)),
          null, ++correlation, probe.ref()));
      WriteReply reply = probe.receiveMessage(WAIT);
      assertInstanceOf(Committed.class, reply, () -> "step " + step + ": " + reply);
    }
    int leader = follower(0);
    for (int at : List.of(leader, f)) {
      WriteReply stale = ask(at, WriteReply.class, r -> new ConditionalWrite(List.of(Expectation.value(b("stock/pen"), b("3"))),
          List.of(Mutation.put(b("stock/pen"), b("4"))), null, ++correlation, r));
      Conflicted conflicted = assertInstanceOf(Conflicted.class, stale, () -> "a stale expectation: " + stale);
      assertEquals(ConflictCause.EXPECTATIONS, conflicted.cause());
      assertArrayEquals(b("20"), conflicted.actual().get(0).value());
    }
  }

  @Test
  void scansComeInPagesWithinTheirLimitAndCountsAreExact() throws Exception {
    List<Mutation> items = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      items.add(Mutation.put("items", b(String.format("item/%02d", i)), b("v" + i)));
    }
    write(follower(1), items, null, null);
    int reader = follower(2);

    List<String> keys = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    ScanReply reply = ask(reader, ScanReply.class, r -> new Scan(ScanRange.prefix("items", b("item/")), 10, ++correlation, r));
    while (true) {
      Page page = assertInstanceOf(Page.class, reply, () -> "a page: ");
      sizes.add(page.entries().size());
      page.entries().forEach(kv -> keys.add(new String(kv.key(), UTF_8)));
      if (page.last()) {
        break;
      }
      Page before = page;
      reply = ask(reader, ScanReply.class, r -> new Scan(ScanRange.prefix("items", b("item/")), 10, before.continuation(), ++correlation, r));
    }
    assertEquals(List.of(10, 10, 5), sizes);
    assertEquals(25, keys.size());
    assertEquals("item/24", keys.get(24));

    Page limited = assertInstanceOf(Page.class, ask(reader, ScanReply.class,
        r -> new Scan(ScanRange.prefix("items", b("item/")).reverse().limit(12), 10, ++correlation, r)));
    assertEquals("item/24", new String(limited.entries().get(0).key(), UTF_8), "reverse: from the top");
    Page rest = assertInstanceOf(Page.class, ask(reader, ScanReply.class,
        r -> new Scan(ScanRange.prefix("items", b("item/")).reverse().limit(12), 10, limited.continuation(), ++correlation, r)));
    assertEquals(List.of("item/14", "item/13"), rest.entries().stream().map(kv -> new String(kv.key(), UTF_8)).toList());
    assertTrue(rest.last(), "the limit of 12 ends the scan");

    Counted all = assertInstanceOf(Counted.class, ask(reader, Reply.class, r -> new Count(ScanRange.all("items"), false, ++correlation,
        ref(r))));
    assertEquals(25, all.count());
    assertTrue(all.exact());
    Counted some = assertInstanceOf(Counted.class, ask(reader, Reply.class, r -> new Count(ScanRange.all("items").limit(7), true,
        ++correlation, ref(r))));
    assertEquals(7, some.count());
  }

  @SuppressWarnings("unchecked")
  private static <T> ActorRef<T> ref(ActorRef<? extends Reply> r) {
    return (ActorRef<T>) r;
  }

  @Test
  void changeFeedsFromDifferentReplicasGiveTheSameRecordsAtTheSamePositions() throws Exception {
    List<Long> positions = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      positions.add(write(i, List.of(Mutation.put(b("shipment/" + i), b("sent"))), LogEntries.of("shipments", b("sent " + i)), null)
          .logPosition());
    }
    List<List<String>> seen = new ArrayList<>();
    for (int replica = 0; replica < 3; replica++) {
      FeedReply reply = ask(replica, FeedReply.class, r -> new OpenChangeFeed("shipments", -1, ++correlation, r));
      FeedOpened opened = assertInstanceOf(FeedOpened.class, reply, () -> "opened: " + reply);
      List<ChangeRecord> records = opened.feed().getSource().take(3).runWith(Sink.seq(), kit.system())
          .toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertEquals(positions, records.stream().map(ChangeRecord::position).toList(), "positions on replica " + replica);
      seen.add(records.stream().map(r -> r.position() + "@" + r.timestamp() + ":" + new String(r.entries().get(0), UTF_8)).toList());
    }
    assertEquals(seen.get(0), seen.get(1));
    assertEquals(seen.get(0), seen.get(2));

    // A live feed: opened after the last record, it delivers the next commit's record.
    FeedOpened live = assertInstanceOf(FeedOpened.class, ask(follower(1), FeedReply.class,
        r -> new OpenChangeFeed("shipments", positions.get(2), ++correlation, r)));
    var next = live.feed().getSource().take(1).runWith(Sink.seq(), kit.system());
    long late = write(follower(2), List.of(Mutation.put(b("shipment/3"), b("sent"))), LogEntries.of("shipments", b("sent 3")), null)
        .logPosition();
    assertEquals(late, next.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0).position());
  }

  @Test
  void everyRequestGetsOneReplyAndThoseAReplicatedDatabaseDoesNotServeSayWhy() throws Exception {
    Set<Class<?>> answered = new HashSet<>();
    List<Request> notServed = List.of(
        new CreateStore("fresh", 1, kit.<io.commitlane.actors.DatabaseProtocol.StoreReply>createTestProbe().ref()),
        new DropStore("items", 2, kit.<io.commitlane.actors.DatabaseProtocol.StoreReply>createTestProbe().ref()),
        new GetStats(3, kit.<io.commitlane.actors.DatabaseProtocol.StatsReply>createTestProbe().ref()),
        new Backup(dir.resolve("backups"), 4, kit.<io.commitlane.actors.DatabaseProtocol.BackupReply>createTestProbe().ref()),
        new Checkpoint(dir.resolve("checkpoint"), 5, kit.<io.commitlane.actors.DatabaseProtocol.CheckpointReply>createTestProbe().ref()));
    for (Request request : notServed) {
      TestProbe<Reply> probe = kit.createTestProbe(Reply.class);
      Request sent = rebind(request, probe.ref());
      actors.get(0).tell(sent);
      Reply reply = probe.receiveMessage(WAIT);
      assertEquals(sent.refused(new Failed(FailureReason.STORAGE, "", false)).getClass(), reply.getClass(),
          request.getClass().getSimpleName() + " is refused in its own reply family: " + reply);
      Failed failed = assertInstanceOf(Failed.class, ((io.commitlane.actors.DatabaseProtocol.RefusedReply) reply).refusal());
      assertEquals(FailureReason.INVALID_REQUEST, failed.reason());
      assertEquals(request.correlation(), reply.correlation());
      assertFalse(failed.message().isBlank());
      probe.expectNoMessage(Duration.ofMillis(20));
      answered.add(request.getClass());
    }
    // The tests above answer the rest; this list must name every request type there is.
    answered.addAll(List.of(Write.class, ConditionalWrite.class, Get.class, MultiGet.class, Scan.class, Count.class,
        OpenChangeFeed.class));
    assertEquals(Set.of(Request.class.getPermittedSubclasses()), answered, "a request type without a test of its reply");
  }

  /** The same request, answering {@code to}. */
  private static Request rebind(Request r, ActorRef<Reply> to) {
    if (r instanceof CreateStore c) {
      return new CreateStore(c.name(), c.correlation(), ref(to));
    } else if (r instanceof DropStore d) {
      return new DropStore(d.name(), d.correlation(), ref(to));
    } else if (r instanceof GetStats s) {
      return new GetStats(s.correlation(), ref(to));
    } else if (r instanceof Backup b) {
      return new Backup(b.directory(), b.correlation(), ref(to));
    } else if (r instanceof Checkpoint c) {
      return new Checkpoint(c.target(), c.correlation(), ref(to));
    }
    throw new IllegalArgumentException(r.toString());
  }

  @Test
  void theActorsSettingsAreChecked() {
    InvalidSettingsException bad = assertThrows(InvalidSettingsException.class,
        () -> new ReplicatedActorSettings(ReadConsistency.LINEARIZABLE, 10));
    assertEquals(List.of("maxPageBytes"), bad.fields());
    assertEquals(ReadConsistency.LOCAL, ReplicatedActorSettings.defaults().withReads(ReadConsistency.LOCAL).reads());
  }
}
