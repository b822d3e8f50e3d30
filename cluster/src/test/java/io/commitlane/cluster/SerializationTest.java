package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.cluster.ShardedDatabase.Committed;
import io.commitlane.cluster.ShardedDatabase.CompareAndWrite;
import io.commitlane.cluster.ShardedDatabase.Conflicted;
import io.commitlane.cluster.ShardedDatabase.Failed;
import io.commitlane.cluster.ShardedDatabase.FailureReason;
import io.commitlane.cluster.ShardedDatabase.FeedOpened;
import io.commitlane.cluster.ShardedDatabase.Get;
import io.commitlane.cluster.ShardedDatabase.GetStats;
import io.commitlane.cluster.ShardedDatabase.MultiGet;
import io.commitlane.cluster.ShardedDatabase.OpenChangeFeed;
import io.commitlane.cluster.ShardedDatabase.Stop;
import io.commitlane.cluster.ShardedDatabase.Unavailable;
import io.commitlane.cluster.ShardedDatabase.UnavailableReason;
import io.commitlane.cluster.ShardedDatabase.Values;
import io.commitlane.cluster.ShardedDatabase.Write;
import java.util.Arrays;
import java.util.List;
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
 * Every message that crosses nodes goes through Jackson CBOR (bound by {@link CborSerializable})
 * and comes back equal: serialized again it gives the same bytes, and the fields read back.
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
  void everyCommandRoundTrips() {
    ActorRef<ShardedDatabase.WriteReply> writes = kit.<ShardedDatabase.WriteReply>createTestProbe().ref();
    ActorRef<ShardedDatabase.ReadReply> reads = kit.<ShardedDatabase.ReadReply>createTestProbe().ref();
    Write w = roundTrip(new Write(List.of(Mutation.put(b("k"), b("v")), Mutation.remove("users", b("gone"))),
        LogEntries.of("orders", b("e1"), b("e2")), writes));
    assertEquals(writes, w.replyTo());
    assertArrayEquals(b("v"), w.mutations().get(0).value());
    assertNull(w.mutations().get(1).value());
    assertEquals("users", w.mutations().get(1).store());
    assertEquals("orders", w.log().log());
    assertArrayEquals(b("e2"), w.log().entries().get(1));
    assertNull(roundTrip(new Write(List.of(Mutation.put(b("k"), b("v"))), null, writes)).log());

    CompareAndWrite c = roundTrip(new CompareAndWrite(List.of(Expectation.value(b("k"), b("old")), Expectation.absent("s", b("new"))),
        List.of(Mutation.put(b("k"), b("next"))), null, writes));
    assertArrayEquals(b("old"), c.expected().get(0).value());
    assertNull(c.expected().get(1).value());

    assertArrayEquals(b("k"), roundTrip(new Get(Key.of(b("k")), reads)).key().key());
    assertEquals("s", roundTrip(new MultiGet(List.of(Key.of(b("a")), Key.of("s", b("b"))), reads)).keys().get(1).store());
    ActorRef<ShardedDatabase.StatsReply> stats = kit.<ShardedDatabase.StatsReply>createTestProbe().ref();
    assertEquals(stats, roundTrip(new GetStats(stats)).replyTo());
    assertEquals(42L, roundTrip(new OpenChangeFeed("orders", 42, kit.<ShardedDatabase.FeedReply>createTestProbe().ref())).afterPosition());
    assertEquals(Stop.INSTANCE, roundTrip(Stop.INSTANCE));
  }

  @Test
  void everyReplyRoundTrips() {
    assertEquals(new CommitStamp(3, 17), roundTrip(new Committed(new CommitStamp(3, 17), 99)).stamp());
    Conflicted conflicted = roundTrip(new Conflicted(List.of(Expectation.value(b("k"), b("now")), Expectation.absent(b("x")))));
    assertArrayEquals(b("now"), conflicted.actual().get(0).value());
    assertNull(conflicted.actual().get(1).value());
    assertEquals(List.of(), roundTrip(new Conflicted(List.of())).actual());
    assertEquals(new Unavailable(UnavailableReason.NO_REPLY, "gone"), roundTrip(new Unavailable(UnavailableReason.NO_REPLY, "gone")));
    assertEquals(new Failed(FailureReason.OVERLOADED, "full", true), roundTrip(new Failed(FailureReason.OVERLOADED, "full", true)));
    Values values = roundTrip(new Values(Arrays.asList(b("a"), null, new byte[0])));
    assertArrayEquals(b("a"), values.values().get(0));
    assertNull(values.values().get(1));
    assertEquals(0, values.values().get(2).length);
    DatabaseStats stats = new DatabaseStats("orders", "pekko://x@127.0.0.1:1", 2, 3, 4, 5, 6, 7, 8, 9);
    assertEquals(stats, roundTrip(stats));
    ChangeRecord record = roundTrip(new ChangeRecord(7, 8, 9, List.of(b("entry"))));
    assertEquals(7, record.position());
    assertArrayEquals(b("entry"), record.entries().get(0));
    assertEquals(new CommitStamp(1, 2), roundTrip(new CommitStamp(1, 2)));
  }

  @Test
  void changeFeedReplyCarriesAStreamRef() {
    SourceRef<ChangeRecord> ref = Source.single(new ChangeRecord(1, 2, 3, List.of())).runWith(StreamRefs.sourceRef(), kit.system());
    FeedOpened back = roundTrip(new FeedOpened(ref));
    assertEquals(1, back.feed().getSource().runWith(org.apache.pekko.stream.javadsl.Sink.seq(), kit.system())
        .toCompletableFuture().join().get(0).position());
  }

  @Test
  void internalMessagesAreNotMarkedForTheWire() {
    for (Class<?> c : ShardedDatabase.Command.class.getPermittedSubclasses()) {
      boolean isPublic = java.lang.reflect.Modifier.isPublic(c.getModifiers());
      assertEquals(isPublic, CborSerializable.class.isAssignableFrom(c), c + ": public messages cross nodes, private ones must not");
    }
  }

  /** Serialize with the serializer bound to the message, check it is Jackson CBOR, deserialize, and serialize again. */
  @SuppressWarnings("unchecked")
  static <T> T roundTrip(T message) {
    assertTrue(message instanceof CborSerializable, message.getClass() + " must be CborSerializable");
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
