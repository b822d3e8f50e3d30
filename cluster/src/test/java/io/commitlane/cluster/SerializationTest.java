package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.ChangeRecord;
import io.commitlane.actors.CommitStamp;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.BackedUp;
import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.CheckpointTaken;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.CreateStore;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.DropStore;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.StoreCreated;
import io.commitlane.actors.DatabaseProtocol.StoreDropped;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.ProtocolMessage;
import io.commitlane.actors.RequestId;
import io.commitlane.cluster.ShardedDatabase.Stop;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.CapturedLog;
import io.commitlane.storage.CheckpointInfo;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.apache.pekko.serialization.jackson.JacksonCborSerializer;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamRefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every message that crosses nodes goes through Jackson CBOR (bound by {@link ProtocolMessage}
 * for the database protocol, which local and sharded databases share, and by {@link
 * CborSerializable} for this module's own) and comes back equal: serialized again it gives the
 * same bytes, and the fields read back.
 */
class SerializationTest {
  static ActorTestKit kit;
  static Serialization serialization;

  @BeforeAll
  static void start() {
    // A cluster-provider system (not joined), so actor refs serialize with a remote address.
    kit = ActorTestKit.create("serialization", ConfigFactory.parseResources("cluster-test.conf").withFallback(ConfigFactory.load()));
    serialization = SerializationExtension.get(kit.system().classicSystem());
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void everyRequestRoundTrips() {
    ActorRef<DatabaseProtocol.WriteReply> writes = kit.<DatabaseProtocol.WriteReply>createTestProbe().ref();
    ActorRef<DatabaseProtocol.ReadReply> reads = kit.<DatabaseProtocol.ReadReply>createTestProbe().ref();
    Write w = roundTrip(new Write(List.of(Mutation.put(b("k"), b("v")), Mutation.remove("users", b("gone"))),
        LogEntries.of("orders", b("e1"), b("e2")), 5, writes));
    assertEquals(writes, w.replyTo());
    assertEquals(5, w.correlation());
    assertArrayEquals(b("v"), w.mutations().get(0).value());
    assertNull(w.mutations().get(1).value());
    assertEquals("users", w.mutations().get(1).store());
    assertEquals("orders", w.log().log());
    assertArrayEquals(b("e2"), w.log().entries().get(1));
    assertNull(roundTrip(new Write(List.of(Mutation.put(b("k"), b("v"))), null, 0, writes)).log());
    assertNull(w.requestId());
    assertEquals(RequestId.of("order-1"),
        roundTrip(new Write(List.of(Mutation.put(b("k"), b("v"))), null, RequestId.of("order-1"), 0, writes)).requestId());

    ConditionalWrite c = roundTrip(new ConditionalWrite(List.of(Expectation.value(b("k"), b("old")), Expectation.absent("s", b("new"))),
        List.of(Mutation.put(b("k"), b("next"))), null, 6, writes));
    assertArrayEquals(b("old"), c.expected().get(0).value());
    assertNull(c.expected().get(1).value());
    assertNull(c.requestId());
    assertEquals(RequestId.of("cas-ä"), roundTrip(new ConditionalWrite(List.of(Expectation.absent(b("k"))),
        List.of(Mutation.put(b("k"), b("v"))), null, RequestId.of("cas-ä"), 6, writes)).requestId());

    assertArrayEquals(b("k"), roundTrip(new Get(Key.of(b("k")), 7, reads)).key().key());
    assertEquals("s", roundTrip(new MultiGet(List.of(Key.of(b("a")), Key.of("s", b("b"))), 8, reads)).keys().get(1).store());
    ActorRef<DatabaseProtocol.StoreReply> stores = kit.<DatabaseProtocol.StoreReply>createTestProbe().ref();
    assertEquals("sessions", roundTrip(new CreateStore("sessions", 9, stores)).name());
    assertEquals(stores, roundTrip(new DropStore("sessions", 10, stores)).replyTo());
    ActorRef<DatabaseProtocol.StatsReply> stats = kit.<DatabaseProtocol.StatsReply>createTestProbe().ref();
    assertEquals(stats, roundTrip(new GetStats(11, stats)).replyTo());
    assertEquals(42L, roundTrip(new OpenChangeFeed("orders", 42, 12, kit.<DatabaseProtocol.FeedReply>createTestProbe().ref())).afterPosition());
    ActorRef<DatabaseProtocol.BackupReply> backups = kit.<DatabaseProtocol.BackupReply>createTestProbe().ref();
    Backup backup = roundTrip(new Backup(Path.of("/backups/orders ä#1"), 13, backups));
    assertEquals(Path.of("/backups/orders ä#1"), backup.directory());
    assertEquals(backups, backup.replyTo());
    ActorRef<DatabaseProtocol.CheckpointReply> checkpoints = kit.<DatabaseProtocol.CheckpointReply>createTestProbe().ref();
    assertEquals(Path.of("/data/orders-copy"), roundTrip(new Checkpoint(Path.of("/data/orders-copy"), 14, checkpoints)).target());
    assertEquals(Stop.INSTANCE, roundTrip(Stop.INSTANCE));
  }

  @Test
  void everyReplyRoundTrips() {
    assertEquals(new CommitStamp(3, 17), roundTrip(new Committed(1, new CommitStamp(3, 17), 99)).stamp());
    Conflicted conflicted = roundTrip(new Conflicted(2, ConflictCause.EXPECTATIONS,
        List.of(Expectation.value(b("k"), b("now")), Expectation.absent(b("x"))), 1));
    assertArrayEquals(b("now"), conflicted.actual().get(0).value());
    assertNull(conflicted.actual().get(1).value());
    assertEquals(new Conflicted(3, ConflictCause.VALIDATION, List.of(), 4), roundTrip(new Conflicted(3, ConflictCause.VALIDATION, List.of(), 4)));
    // Every family's refusal, each with either kind of refusal inside: the one field whose type is an interface.
    Failed overloaded = new Failed(FailureReason.OVERLOADED, "full", true);
    Unavailable gone = new Unavailable(UnavailableReason.NO_REPLY, "gone");
    List<DatabaseProtocol.RefusedReply> refusals = List.of(new DatabaseProtocol.WriteRefused(4, gone),
        new DatabaseProtocol.WriteRefused(5, overloaded), new DatabaseProtocol.ReadRefused(6, new Failed(FailureReason.DATABASE_CLOSED,
            "closed", false)), new DatabaseProtocol.ScanRefused(7, gone), new DatabaseProtocol.CountRefused(8, overloaded),
        new DatabaseProtocol.StoreRefused(9, gone), new DatabaseProtocol.StatsRefused(10, overloaded), new DatabaseProtocol.FeedRefused(11, gone),
        new DatabaseProtocol.BackupRefused(12, new Failed(FailureReason.IN_USE, "another backup", true)),
        new DatabaseProtocol.CheckpointRefused(13, gone));
    for (DatabaseProtocol.RefusedReply r : refusals) {
      assertEquals(r, roundTrip(r));
    }
    Values values = roundTrip(new Values(7, Arrays.asList(b("a"), null, new byte[0])));
    assertArrayEquals(b("a"), values.values().get(0));
    assertNull(values.values().get(1));
    assertEquals(0, values.values().get(2).length);
    assertEquals(new StoreCreated(8, "sessions", 3), roundTrip(new StoreCreated(8, "sessions", 3)));
    assertEquals(new StoreDropped(9, "sessions"), roundTrip(new StoreDropped(9, "sessions")));
    DatabaseStats stats = new DatabaseStats(10, "orders", "pekko://x@127.0.0.1:1", 2, 4, 2, 3, 4, 5, 6, 7, 8, 9);
    assertEquals(stats, roundTrip(stats));
    DatabaseStats full = new DatabaseStats(10, "orders", "pekko://x@127.0.0.1:1", 2, 4, 2, 3, 4, 5, 6, 7, 8, 9, "DEGRADED",
        "DEGRADED (FLUSH failed: IOError(NoSpace))", 1, 2, 3, 4, 5, 6, 7, 8, true, 1, 2);
    assertEquals(full, roundTrip(full));
    BackupInfo info = new BackupInfo(3, Instant.parse("2026-01-02T03:04:05.678Z"), 99, 12345, 1, "identity-1", "/data/orders",
        List.of(new CapturedLog("main", 1L << 32, (1L << 32) + 100, 100)), true);
    assertEquals(new BackedUp(12, info), roundTrip(new BackedUp(12, info)));
    CheckpointInfo checkpoint = new CheckpointInfo(Path.of("/data/orders-copy"), 98, List.of(new CapturedLog("main", 0, 100, 100)));
    assertEquals(new CheckpointTaken(13, checkpoint), roundTrip(new CheckpointTaken(13, checkpoint)));
    ChangeRecord record = roundTrip(new ChangeRecord(7, 8, 9, List.of(b("entry"))));
    assertEquals(7, record.position());
    assertArrayEquals(b("entry"), record.entries().get(0));
  }

  /** The two tests above round-trip a sample of every request and reply: a new message type must get one. */
  @Test
  void everyProtocolMessageIsMarkedForTheWire() {
    Set<Class<?>> leaves = new HashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(DatabaseProtocol.Request.class, DatabaseProtocol.Reply.class,
        DatabaseProtocol.Refusal.class));
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      assertTrue(ProtocolMessage.class.isAssignableFrom(c), c + " must be a ProtocolMessage");
      if (c.isSealed()) {
        todo.addAll(List.of(c.getPermittedSubclasses()));
      } else {
        leaves.add(c);
      }
    }
    assertEquals(Set.of(Write.class, ConditionalWrite.class, Get.class, MultiGet.class, DatabaseProtocol.Scan.class,
        DatabaseProtocol.Count.class, CreateStore.class, DropStore.class, GetStats.class, OpenChangeFeed.class, Committed.class,
        Conflicted.class, Values.class, DatabaseProtocol.Page.class, DatabaseProtocol.Counted.class, StoreCreated.class,
        StoreDropped.class, DatabaseStats.class, FeedOpened.class, Failed.class, Unavailable.class, Backup.class, Checkpoint.class,
        BackedUp.class, CheckpointTaken.class, DatabaseProtocol.WriteRefused.class, DatabaseProtocol.ReadRefused.class,
        DatabaseProtocol.ScanRefused.class, DatabaseProtocol.CountRefused.class, DatabaseProtocol.StoreRefused.class,
        DatabaseProtocol.StatsRefused.class, DatabaseProtocol.FeedRefused.class, DatabaseProtocol.BackupRefused.class,
        DatabaseProtocol.CheckpointRefused.class), leaves);
  }

  @Test
  void rangeReadsRoundTrip() {
    ActorRef<DatabaseProtocol.ScanReply> scans = kit.<DatabaseProtocol.ScanReply>createTestProbe().ref();
    ActorRef<DatabaseProtocol.CountReply> counts = kit.<DatabaseProtocol.CountReply>createTestProbe().ref();
    io.commitlane.actors.ScanRange range = io.commitlane.actors.ScanRange.prefix("orders", b("order/")).reverse().limit(20).keysOnly();
    DatabaseProtocol.Scan scan = roundTrip(new DatabaseProtocol.Scan(range, 100, b("next"), 7, scans));
    assertEquals(range, scan.range());
    assertArrayEquals(b("next"), scan.after());
    assertEquals(scans, scan.replyTo());
    assertNull(roundTrip(new DatabaseProtocol.Scan(io.commitlane.actors.ScanRange.all(null), 1, 8, scans)).after());
    DatabaseProtocol.Count count = roundTrip(new DatabaseProtocol.Count(range, true, 9, counts));
    assertEquals(range, count.range());
    assertTrue(count.estimate());
    DatabaseProtocol.Page page = roundTrip(new DatabaseProtocol.Page(10,
        List.of(new io.commitlane.storage.KeyValue(b("a"), b("1")), new io.commitlane.storage.KeyValue(b("b"), null)), b("cont"), false));
    assertEquals(List.of(new io.commitlane.storage.KeyValue(b("a"), b("1")), new io.commitlane.storage.KeyValue(b("b"), null)),
        page.entries());
    assertArrayEquals(b("cont"), page.continuation());
    assertTrue(roundTrip(new DatabaseProtocol.Page(11, List.of(), null, true)).last());
    DatabaseProtocol.Counted counted = roundTrip(new DatabaseProtocol.Counted(12, 42, false));
    assertEquals(42, counted.count());
  }

  @Test
  void changeFeedReplyCarriesAStreamRef() {
    SourceRef<ChangeRecord> ref = Source.single(new ChangeRecord(1, 2, 3, List.of())).runWith(StreamRefs.sourceRef(), kit.system());
    FeedOpened back = roundTrip(new FeedOpened(13, ref));
    assertEquals(1, back.feed().getSource().runWith(org.apache.pekko.stream.javadsl.Sink.seq(), kit.system())
        .toCompletableFuture().join().get(0).position());
  }

  /**
   * The entity's own messages are classified, each one: those that cross nodes are marked for the
   * wire, and those the entity sends itself (public only so its internal lifecycle packages can
   * build them) are not. A new message fails this test until it is put in one list.
   */
  @Test
  void onlyTheMessagesThatCrossNodesAreMarkedForTheWire() {
    java.util.Set<Class<?>> wire = java.util.Set.of(ShardedDatabase.Stop.class);
    java.util.Set<Class<?>> local = java.util.Set.of(ShardedDatabase.OpenResult.class, ShardedDatabase.RetryOpen.class,
        ShardedDatabase.Closed.class);
    for (Class<?> c : ShardedDatabase.Command.class.getPermittedSubclasses()) {
      assertTrue(wire.contains(c) || local.contains(c), c + " is in neither list: say whether it crosses nodes");
      assertEquals(wire.contains(c), CborSerializable.class.isAssignableFrom(c), c + ": messages that cross nodes are"
          + " CborSerializable, the entity's messages to itself are not");
    }
  }

  /** Serialize with the serializer bound to the message, check it is Jackson CBOR, deserialize, and serialize again. */
  @SuppressWarnings("unchecked")
  static <T> T roundTrip(T message) {
    assertTrue(message instanceof CborSerializable || message instanceof ProtocolMessage,
        message.getClass() + " must be CborSerializable or a ProtocolMessage");
    Serializer serializer = serialization.findSerializerFor(message);
    assertInstanceOf(JacksonCborSerializer.class, serializer, message.getClass().getName());
    byte[] bytes = serialization.serialize(message).get();
    String manifest = Serializers.manifestFor(serializer, message);
    Object back = serialization.deserialize(bytes, serializer.identifier(), manifest).get();
    assertEquals(message.getClass(), back.getClass());
    assertArrayEquals(bytes, serialization.serialize(back).get(), "serialized again, " + message.getClass().getSimpleName() + " changed");
    assertFalse(bytes.length == 0);
    return (T) back;
  }
}
