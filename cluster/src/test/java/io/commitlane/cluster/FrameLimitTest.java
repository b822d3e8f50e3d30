package io.commitlane.cluster;

import static io.commitlane.cluster.Await.b;
import static io.commitlane.cluster.Await.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.actors.ScanRange;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.Key;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void aWriteThatFitsAFrameWithItsMarginReachesTheOtherNode() {
    byte[] value = new byte[FRAME - FrameLimit.MARGIN_BYTES - 1024];
    result(client.write(DB, List.of(Mutation.put(b("fits"), value))), Committed.class);
    assertEquals(value.length, result(client.get(DB, io.commitlane.actors.Key.of(b("fits"))),
        io.commitlane.actors.DatabaseProtocol.Values.class).values().get(0).length);
  }
}
