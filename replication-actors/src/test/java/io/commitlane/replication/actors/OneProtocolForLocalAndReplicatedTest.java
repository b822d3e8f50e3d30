package io.commitlane.replication.actors;

import io.commitlane.testsupport.LoopbackPorts;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseActor;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.CountReply;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedRefused;
import io.commitlane.actors.DatabaseProtocol.FeedReply;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.ReadRefused;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.ScanRefused;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.ScanRange;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.storage.InvalidSettingsException;




import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same requests, sent by the same code through an {@code ActorRef<DatabaseProtocol.Request>},
 * to a local database actor and to replicated ones: on a node that hosts a replica, on a node
 * that holds only a client handle, and each chosen by settings ({@link ConfiguredDatabaseActor}).
 * The sender registers one message adapter per reply family, in one order and in the reverse, and
 * each reply, refusals included, must reach the adapter of the request that caused it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OneProtocolForLocalAndReplicatedTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final List<String> FAMILIES = List.of("write", "read", "scan", "count");

  @TempDir static Path dir;
  private final List<ReplicaNode> nodes = new ArrayList<>();
  private final List<ReplicatedDatabase> replicas = new ArrayList<>();
  private ReplicatedDatabase client;
  private ReplicationGroup group;
  private ActorTestKit kit;

  @BeforeAll
  void start() {
    List<ReplicaPeer> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      peers.add(new ReplicaPeer("n" + i, "127.0.0.1", LoopbackPorts.freePort()));
    }
    group = new ReplicationGroup("accounts", peers);
    kit = ActorTestKit.create("one-protocol");
    for (ReplicaPeer peer : peers) {
      // The default election timeouts: on a busy machine shorter ones let a follower call an
      // election mid-test, and a read barrier during one is refused Unavailable, rightly.
      ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id())));
      nodes.add(node);
      replicas.add(node.host(group));
    }
    client = ReplicatedDatabase.connect(group, Duration.ofSeconds(10));
  }

  @AfterAll
  void stop() {
    kit.shutdownTestKit();
    client.close();
    nodes.forEach(ReplicaNode::close);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private String voters() {
    return group.voters().stream().map(p -> "\"" + p.id() + "=" + p.host() + ":" + p.port() + "\"").collect(Collectors.joining(", "));
  }

  private int follower() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 3; i++) {
        if (replicas.get(i).status().role().equals("LEADER")) {
          return (i + 1) % 3;
        }
      }
      Thread.sleep(20); // an election runs on the replicas' own timers
    }
    throw new AssertionError("no leader within " + WAIT);
  }

  // ---- the one body ---------------------------------------------------------------------------

  /** A reply and the adapter (reply family) it reached. */
  private record Seen(String adapter, Reply reply) {}

  /** A request to send, built with the sender's adapters. */
  private interface Send extends Function<Map<String, ActorRef<? extends Reply>>, Request> {}

  /** Registers one adapter per family in {@code order}, sends what it is told, reports each reply with its adapter. */
  private static Behavior<Object> sender(ActorRef<Request> database, List<String> order, ActorRef<Seen> seen) {
    return Behaviors.setup(ctx -> {
      Map<String, ActorRef<? extends Reply>> adapters = new HashMap<>();
      for (String family : order) {
        adapters.put(family, switch (family) {
          case "write" -> ctx.messageAdapter(WriteReply.class, r -> new Seen("write", r));
          case "read" -> ctx.messageAdapter(ReadReply.class, r -> new Seen("read", r));
          case "scan" -> ctx.messageAdapter(ScanReply.class, r -> new Seen("scan", r));
          case "count" -> ctx.messageAdapter(CountReply.class, r -> new Seen("count", r));
          default -> throw new IllegalArgumentException(family);
        });
      }
      return Behaviors.receiveMessage(message -> {
        if (message instanceof Seen s) {
          seen.tell(s);
        } else {
          database.tell(((Send) message).apply(adapters));
        }
        return Behaviors.same();
      });
    });
  }

  @SuppressWarnings("unchecked")
  private static <T> ActorRef<T> to(Map<String, ActorRef<? extends Reply>> adapters, String family) {
    return (ActorRef<T>) adapters.get(family);
  }

  /** Writes, conditional writes, reads, a scan in pages, a count and a refusal: each reply on its own adapter. */
  private void theSameRequestsGetTheSameReplies(ActorRef<Request> database, String prefix) {
    for (List<String> order : List.of(FAMILIES, List.of("count", "scan", "read", "write"))) {
      String p = prefix + "/" + order.get(0) + "/";
      TestProbe<Seen> seen = kit.createTestProbe(Seen.class);
      ActorRef<Object> s = kit.spawn(sender(database, order, seen.ref()));
      Function<Send, Seen> ask = send -> {
        s.tell(send);
        Seen reply = seen.receiveMessage(WAIT);
        seen.expectNoMessage(Duration.ofMillis(20)); // exactly one reply
        return reply;
      };

      Seen written = ask.apply(a -> new Write(List.of(Mutation.put(b(p + "balance"), b("10"))), null, 1, to(a, "write")));
      assertEquals("write", written.adapter());
      assertInstanceOf(Committed.class, written.reply(), () -> "written: " + written);

      Seen debited = ask.apply(a -> new ConditionalWrite(List.of(Expectation.value(b(p + "balance"), b("10"))),
          List.of(Mutation.put(b(p + "balance"), b("7"))), null, 2, to(a, "write")));
      assertInstanceOf(Committed.class, debited.reply(), () -> "debited while the balance was 10: " + debited);

      Seen stale = ask.apply(a -> new ConditionalWrite(List.of(Expectation.value(b(p + "balance"), b("10"))),
          List.of(Mutation.put(b(p + "balance"), b("0"))), null, 3, to(a, "write")));
      assertEquals("write", stale.adapter());
      Conflicted conflicted = assertInstanceOf(Conflicted.class, stale.reply(), () -> "a stale expectation: " + stale);
      assertEquals(ConflictCause.EXPECTATIONS, conflicted.cause());
      assertArrayEquals(b("7"), conflicted.actual().get(0).value(), "the conflict says what the key holds");
      assertEquals(3, conflicted.correlation());

      Seen read = ask.apply(a -> new MultiGet(List.of(Key.of(b(p + "balance")), Key.of(b(p + "nothing"))), 4, to(a, "read")));
      assertEquals("read", read.adapter());
      List<byte[]> values = assertInstanceOf(Values.class, read.reply()).values();
      assertArrayEquals(b("7"), values.get(0));
      assertNull(values.get(1));

      List<Mutation> items = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        items.add(Mutation.put(b(p + "item/" + i), b("v" + i)));
      }
      assertInstanceOf(Committed.class, ask.apply(a -> new Write(items, null, 5, to(a, "write"))).reply());
      ScanRange range = ScanRange.prefix(null, b(p + "item/"));
      Seen first = ask.apply(a -> new Scan(range, 3, 6, to(a, "scan")));
      assertEquals("scan", first.adapter());
      Page page = assertInstanceOf(Page.class, first.reply(), () -> "a page: " + first);
      assertEquals(3, page.entries().size());
      Seen second = ask.apply(a -> new Scan(range, 3, page.continuation(), 7, to(a, "scan")));
      Page rest = assertInstanceOf(Page.class, second.reply(), () -> "the next page: " + second);
      assertEquals(2, rest.entries().size());
      assertTrue(rest.last());

      Seen counted = ask.apply(a -> new Count(range, false, 8, to(a, "count")));
      assertEquals("count", counted.adapter());
      assertEquals(5, assertInstanceOf(Counted.class, counted.reply()).count());

      // A continuation of another range is refused, in the scan's own family.
      Seen refused = ask.apply(a -> new Scan(ScanRange.prefix(null, b(p + "balance")), 3, page.continuation(), 9, to(a, "scan")));
      assertEquals("scan", refused.adapter());
      ScanRefused no = assertInstanceOf(ScanRefused.class, refused.reply(), () -> "refused: " + refused);
      assertEquals(FailureReason.INVALID_REQUEST, assertInstanceOf(Failed.class, no.refusal()).reason());
      assertEquals(9, no.correlation());
      kit.stop(s);
    }
  }

  @Test
  void aLocalDatabaseActor() {
    theSameRequestsGetTheSameReplies(kit.spawn(DatabaseActor.create(dir.resolve("local"))), "local");
  }

  @Test
  void aReplicatedDatabaseActorOnAFollowerThatHostsAReplica() throws InterruptedException {
    theSameRequestsGetTheSameReplies(kit.spawn(ReplicatedDatabaseActor.create(replicas.get(follower()))), "hosting");
  }

  @Test
  void aReplicatedDatabaseActorOnANodeThatHoldsOnlyAClient() {
    theSameRequestsGetTheSameReplies(kit.spawn(ReplicatedDatabaseActor.create(client)), "client");
  }

  @Test
  void aLocalDatabaseChosenBySettings() {
    Config config = ConfigFactory.parseString("commitlane.database { kind = local, path = \""
        + dir.resolve("configured").toString().replace("\\", "/") + "\" }");
    theSameRequestsGetTheSameReplies(kit.spawn(ConfiguredDatabaseActor.create(config)), "configured-local");
  }

  @Test
  void aReplicatedDatabaseChosenBySettingsFromANodeWithoutAReplica() {
    Config config = ConfigFactory.parseString("commitlane.database { kind = replicated, replicated { database = accounts,"
        + " voters = [" + voters() + "], node = client } }");
    theSameRequestsGetTheSameReplies(kit.spawn(ConfiguredDatabaseActor.create(config)), "configured-client");
  }

  @Test
  void aReplicatedDatabaseChosenBySettingsOnANodeThatHostsItsReplica() {
    // A group of one voter, so that this node's replica leads once the actor has started it.
    Config config = ConfigFactory.parseString("commitlane.database { kind = replicated, replicated { database = ledger,"
        + " voters = [\"solo=127.0.0.1:" + LoopbackPorts.freePort() + "\"], node = solo, directory = \""
        + dir.resolve("solo").toString().replace("\\", "/") + "\" } }");
    ActorRef<Request> hosted = kit.spawn(ConfiguredDatabaseActor.create(config));
    theSameRequestsGetTheSameReplies(hosted, "configured-hosting");
    kit.stop(hosted); // closes the node it started
  }

  @Test
  void whatAClientOnlyNodeCannotServeIsRefusedInItsOwnFamily() {
    ActorRef<Request> local = kit.spawn(ReplicatedDatabaseActor.create(client,
        ReplicatedActorSettings.defaults().withReads(ReadConsistency.LOCAL)));
    TestProbe<ReadReply> reads = kit.createTestProbe(ReadReply.class);
    local.tell(new Get(Key.of(b("client/k")), 1, reads.ref()));
    ReadRefused read = assertInstanceOf(ReadRefused.class, reads.receiveMessage(WAIT));
    Failed why = assertInstanceOf(Failed.class, read.refusal());
    assertEquals(FailureReason.INVALID_REQUEST, why.reason());
    assertTrue(why.message().contains("holds no replica"), why.message());

    ActorRef<Request> linearizable = kit.spawn(ReplicatedDatabaseActor.create(client));
    TestProbe<FeedReply> feeds = kit.createTestProbe(FeedReply.class);
    linearizable.tell(new OpenChangeFeed("ledger", -1, 2, feeds.ref()));
    FeedRefused feed = assertInstanceOf(FeedRefused.class, feeds.receiveMessage(WAIT));
    assertEquals(FailureReason.INVALID_REQUEST, assertInstanceOf(Failed.class, feed.refusal()).reason());
    assertEquals(2, feed.correlation());
  }

  @Test
  void badSettingsAreNamedAllAtOnce() {
    InvalidSettingsException bad = assertThrows(InvalidSettingsException.class, () -> ConfiguredDatabaseActor.create(
        ConfigFactory.parseString("commitlane.database { kind = replicated, colour = blue, replicated { database = accounts,"
            + " voters = [\"n1=127.0.0.1:notaport\"], node = n9, reads = sometimes } }")));
    assertEquals(List.of("commitlane.database.colour", "commitlane.database.replicated.voters",
        "commitlane.database.replicated.node", "commitlane.database.replicated.directory",
        "commitlane.database.replicated.reads"), bad.fields());
    InvalidSettingsException missing = assertThrows(InvalidSettingsException.class,
        () -> ConfiguredDatabaseActor.create(ConfigFactory.empty()));
    assertEquals(List.of("commitlane.database"), missing.fields());
  }
}
