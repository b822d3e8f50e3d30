package io.commitlane.cluster;

import io.commitlane.cluster.internal.routing.FrameLimit;
import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.ScanRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes on loopback with a small remote frame: a request too large for one frame is refused
 * where it is built, on the sending node, instead of being dropped on its way to an owner on the
 * other node (which left the caller waiting for a reply that never comes).
 */
class FrameLimitTest {
  static final int FRAME = 64 * 1024;
  static final String DB = "big";

  @TempDir
  static Path dir;
  static TestCluster cluster;
  /** A node that does not own {@link #DB}: its requests cross the transport. */
  static DatabaseSharding client;

  @BeforeAll
  static void start() {
    cluster = TestCluster.start(2, dir, "pekko.remote.artery.advanced.maximum-frame-size = " + FRAME + "\n"
        + "commitlane.cluster.ask-timeout = 5 s\n");
    result(cluster.databases.get(0).write(DB, List.of(Mutation.put(b("k"), b("v")))), Committed.class);
    DatabaseStats stats = result(cluster.databases.get(0).stats(DB), DatabaseStats.class);
    client = cluster.databases.get(1 - cluster.indexOf(stats.owner()));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aWriteLargerThanAFrameIsRefusedBeforeItIsSent() {
    List<Mutation> big = List.of(Mutation.put(b("big"), new byte[FRAME]));
    RequestTooLargeException e = assertThrows(RequestTooLargeException.class, () -> client.write(DB, big, null, RequestId.random()));
    assertTrue(e.getMessage().contains(String.valueOf(FRAME)) && e.getMessage().contains("maximum-frame-size"), e.getMessage());
    assertThrows(RequestTooLargeException.class,
        () -> client.compareAndWrite(DB, List.of(Expectation.absent(b("big"))), List.of(), LogEntries.of("events", new byte[FRAME])));
  }

  @Test
  void manySmallMutationsThatAddUpToMoreThanAFrameAreRefused() {
    List<Mutation> many = new ArrayList<>();
    for (int i = 0; i < FRAME / 16; i++) {
      many.add(Mutation.put(b("k" + i), b("v")));
    }
    assertThrows(RequestTooLargeException.class, () -> client.write(DB, many));
    List<Key> keys = many.stream().map(m -> Key.of(m.key())).toList();
    assertThrows(RequestTooLargeException.class, () -> client.multiGet(DB, keys));
  }

  /** The bound that lets most requests skip serialization is never below what serialization gives. */
  @Test
  void theSizeBoundHoldsForRequestsOfEveryShape() {
    var serialization = SerializationExtension.get(Adapter.toClassic(cluster.nodes.get(0).system()));
    org.apache.pekko.actor.typed.ActorRef<DatabaseProtocol.WriteReply> replyTo = cluster.nodes.get(0).system().deadLetters();
    List<Mutation> small = new ArrayList<>();
    List<Expectation> expected = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      small.add(i % 3 == 0 ? Mutation.remove("store-" + i, b("k" + i)) : Mutation.put(i % 2 == 0 ? null : "s", b("key-" + i), b("v")));
      expected.add(Expectation.value("s", b("key-" + i), i % 2 == 0 ? null : b("x")));
    }
    List<DatabaseProtocol.Command> requests = List.of(
        new DatabaseProtocol.Write(small, LogEntries.of("events", b("a"), b("b")), RequestId.random(), Long.MAX_VALUE, replyTo),
        new DatabaseProtocol.Write(List.of(Mutation.put(b("k"), new byte[10_000])), null, 1, replyTo),
        new DatabaseProtocol.ConditionalWrite(expected, small, null, RequestId.of("é".repeat(100)), -1, replyTo),
        new DatabaseProtocol.MultiGet(small.stream().map(m -> Key.of(m.store(), m.key())).toList(), 7, replyTo.unsafeUpcast()),
        new DatabaseProtocol.Scan(ScanRange.all("s").from(new byte[300]).toInclusive(new byte[500]).reverse().limit(9), 100,
            new byte[600], 8, replyTo.unsafeUpcast()),
        new DatabaseProtocol.Count(ScanRange.prefix("s", new byte[700]), true, 9, replyTo.unsafeUpcast()),
        new DatabaseProtocol.Backup(java.nio.file.Path.of("/backups/" + "ä %".repeat(300)), 10, replyTo.unsafeUpcast()),
        new DatabaseProtocol.Checkpoint(java.nio.file.Path.of("/copies/" + "x".repeat(2000)), 11, replyTo.unsafeUpcast()));
    for (DatabaseProtocol.Command r : requests) {
      long serialized = serialization.serialize(r).get().length;
      assertTrue(serialized <= FrameLimit.upperBound(r), r.getClass().getSimpleName() + ": " + serialized + " > " + FrameLimit.upperBound(r));
    }
  }

  /** The bound that lets most replies to another node skip serialization is never below what serialization gives. */
  @Test
  void theReplySizeBoundHoldsForRepliesOfEveryShape() {
    var serialization = SerializationExtension.get(Adapter.toClassic(cluster.nodes.get(0).system()));
    List<Expectation> actual = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    List<io.commitlane.storage.KeyValue> entries = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      actual.add(Expectation.value(i % 2 == 0 ? null : "store-" + "x".repeat(i % 7), b("key-" + i), i % 3 == 0 ? null : new byte[i]));
      values.add(i % 3 == 0 ? null : new byte[i]);
      entries.add(new io.commitlane.storage.KeyValue(b("key-" + i), i % 3 == 0 ? null : new byte[i]));
    }
    List<DatabaseProtocol.Reply> replies = List.of(
        new DatabaseProtocol.Committed(Long.MIN_VALUE, new io.commitlane.actors.CommitStamp(Long.MAX_VALUE, Long.MAX_VALUE), -1),
        new DatabaseProtocol.Conflicted(1, DatabaseProtocol.ConflictCause.VALIDATION, actual, Integer.MAX_VALUE),
        new DatabaseProtocol.Values(2, values),
        new DatabaseProtocol.Page(3, entries, new byte[700], false),
        new DatabaseProtocol.Counted(4, Long.MAX_VALUE, true),
        new DatabaseProtocol.StoreCreated(5, "s".repeat(200), Integer.MAX_VALUE),
        new DatabaseProtocol.StoreDropped(6, "s".repeat(200)),
        new DatabaseProtocol.WriteRefused(7, new DatabaseProtocol.Failed(DatabaseProtocol.FailureReason.REPLY_TOO_LARGE,
            "é \" ".repeat(500), true)),
        new DatabaseProtocol.StatsRefused(8, new DatabaseProtocol.Unavailable(DatabaseProtocol.UnavailableReason.PREVIOUS_OWNER_HOLDS,
            "ü".repeat(900))),
        new DatabaseProtocol.DatabaseStats(9, "d".repeat(200), "pekko://x@127.0.0.1:65535", Long.MAX_VALUE, Integer.MAX_VALUE,
            Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
            Long.MAX_VALUE, "DEGRADED", "ö".repeat(300), Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
            Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, true, Integer.MAX_VALUE, Integer.MAX_VALUE));
    for (DatabaseProtocol.Reply r : replies) {
      long serialized = serialization.serialize(r).get().length;
      long bound = io.commitlane.actors.internal.protocol.ReplyLimit.upperBound(r);
      assertTrue(serialized <= bound, r.getClass().getSimpleName() + ": " + serialized + " > " + bound);
    }
  }

  /** Pages from the owner are cut to fit a frame, so a range of several frames' worth arrives page by page, none dropped. */
  @Test
  void aScanOfMoreThanAFrameArrivesInPagesThatEachFitAFrame() {
    var serialization = SerializationExtension.get(Adapter.toClassic(cluster.nodes.get(0).system()));
    for (int i = 0; i < 40; i++) {
      result(client.write(DB, List.of(Mutation.put(b(String.format("scan/%02d", i)), new byte[4096]))), Committed.class);
    }
    ScanRange range = ScanRange.prefix(null, b("scan/"));
    List<String> keys = new ArrayList<>();
    byte[] after = null;
    int pages = 0;
    while (true) {
      DatabaseProtocol.Page page = result(client.scan(DB, range, DatabaseProtocol.Scan.MAX_PAGE_SIZE, after),
          DatabaseProtocol.Page.class);
      assertTrue(serialization.serialize(page).get().length < FRAME - FrameLimit.MARGIN_BYTES, "a page fits a frame");
      page.entries().forEach(kv -> keys.add(new String(kv.key(), java.nio.charset.StandardCharsets.UTF_8)));
      pages++;
      if (page.last()) {
        break;
      }
      after = page.continuation();
    }
    assertEquals(40, keys.size());
    assertEquals("scan/00", keys.get(0));
    assertEquals("scan/39", keys.get(39));
    assertTrue(pages >= 3, "160 KiB of values in frames of 64 KiB: " + pages + " pages");
    assertEquals(40, result(client.count(DB, range, false), DatabaseProtocol.Counted.class).count());
  }

  /**
   * A conflict whose current values are three times 32 KiB: the reply cannot cross to the client,
   * which gets a typed failure naming the frame, not a silence until its ask times out.
   */
  @Test
  void aConflictWhoseCurrentValuesDoNotFitAFrameIsATypedFailureNamingTheLimit() {
    List<Expectation> expected = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      byte[] key = b("conflict/" + i);
      result(client.write(DB, List.of(Mutation.put(key, new byte[32 * 1024]))), Committed.class);
      expected.add(Expectation.absent(key));
    }
    DatabaseProtocol.WriteReply reply = result(client.compareAndWrite(DB, expected, List.of(Mutation.put(b("conflict/x"), b("v")))));
    assertTooLarge(reply);
    assertTrue(((DatabaseProtocol.RefusedReply) reply).message().contains("nothing was written"), reply.toString());
  }

  /** A value larger than a frame: refused to a caller on another node, read whole by a caller on the owner. */
  @Test
  void aValueLargerThanAFrameIsRefusedToAnotherNodeAndReadOnTheOwner() {
    DatabaseSharding owner = cluster.databases.get(1 - cluster.databases.indexOf(client));
    byte[] big = new byte[128 * 1024];
    tellOnOwner(owner, replyTo -> new DatabaseProtocol.Write(List.of(Mutation.put(b("huge/1"), big),
        Mutation.put(b("huge/2"), big)), null, 1, replyTo), Committed.class);

    assertTooLarge(result(client.get(DB, Key.of(b("huge/1")))));
    DatabaseProtocol.ScanReply scanned = result(client.scan(DB, ScanRange.prefix(null, b("huge/")), 10, null));
    assertTooLarge(scanned);
    String message = ((DatabaseProtocol.ScanRefused) scanned).message();
    assertTrue(!message.contains("read it with Get") && message.contains("huge/1"), message);

    // On the owner the caller is local: no frame between them, nothing refused.
    assertEquals(big.length, result(owner.get(DB, Key.of(b("huge/1"))), DatabaseProtocol.Values.class).values().get(0).length);
    assertEquals(2, result(owner.multiGet(DB, List.of(Key.of(b("huge/1")), Key.of(b("huge/2")))), DatabaseProtocol.Values.class)
        .values().size());
    assertEquals(2, result(owner.scan(DB, ScanRange.prefix(null, b("huge/")), 10, null), DatabaseProtocol.Page.class).entries().size());
  }

  /** Send a request built around an ask's reply-to on {@code owner}'s node, straight to the entity (no frame check). */
  private static <T> T tellOnOwner(DatabaseSharding owner, java.util.function.Function<org.apache.pekko.actor.typed.ActorRef<
      DatabaseProtocol.WriteReply>, DatabaseProtocol.Command> request, Class<T> expected) {
    return result(owner.entityRef(DB).<DatabaseProtocol.WriteReply>ask(request::apply, java.time.Duration.ofSeconds(20)), expected);
  }

  private static void assertTooLarge(Object reply) {
    DatabaseProtocol.Failed f = Await.as(DatabaseProtocol.Failed.class, reply);
    assertEquals(DatabaseProtocol.FailureReason.REPLY_TOO_LARGE, f.reason(), f.toString());
    assertTrue(f.message().contains("maximum-frame-size") && f.message().contains(String.valueOf(FRAME)), f.message());
  }

  @Test
  void aWriteThatFitsAFrameWithItsMarginReachesTheOtherNode() {
    byte[] value = new byte[FRAME - FrameLimit.MARGIN_BYTES - 1024];
    result(client.write(DB, List.of(Mutation.put(b("fits"), value))), Committed.class);
    assertEquals(value.length, result(client.get(DB, io.commitlane.actors.Key.of(b("fits"))),
        io.commitlane.actors.DatabaseProtocol.Values.class).values().get(0).length);
  }
}
