package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.CountReply;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.protocol.ReadRequests;
import io.commitlane.actors.stream.RangeSource;
import io.commitlane.storage.Batch;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Range reads through the protocol (Scan pages, Count) and as a stream. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ScanProtocolTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open() {
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), Map.of("wal", "off")));
  }

  /** order/c1/00..order/c1/24 and order/c2/00..04 in the default store. */
  private static void orders(CommitlaneDatabase db) {
    Batch batch = Batch.create();
    for (int i = 0; i < 25; i++) {
      batch.put(db.storage().defaultStore(), b(String.format("order/c1/%02d", i)), b("v" + i));
    }
    for (int i = 0; i < 5; i++) {
      batch.put(db.storage().defaultStore(), b(String.format("order/c2/%02d", i)), b("w" + i));
    }
    db.storage().write(batch);
  }

  private static List<String> keys(List<KeyValue> entries) {
    return entries.stream().map(kv -> s(kv.key())).toList();
  }

  @Test
  void pagesThroughAPrefixWithContinuationsAndCarriesTheCorrelation() {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      ActorRef<Request> ref = db.ref();
      TestProbe<ScanReply> probe = testKit.createTestProbe();
      Scan scan = new Scan(ScanRange.prefix(null, b("order/c1/")), 10, 1, probe.ref());
      List<String> seen = new ArrayList<>();
      int pages = 0;
      while (true) {
        ref.tell(scan);
        Page page = probe.expectMessageClass(Page.class);
        assertEquals(scan.correlation(), page.correlation());
        seen.addAll(keys(page.entries()));
        pages++;
        if (page.last()) {
          assertNull(page.continuation());
          break;
        }
        scan = scan.next(page, scan.correlation() + 1);
      }
      assertEquals(3, pages, "25 entries in pages of 10");
      assertEquals(25, seen.size());
      assertEquals("order/c1/00", seen.get(0));
      assertEquals("order/c1/24", seen.get(24));
    }
  }

  @Test
  void aReverseLimitedScanGivesTheNewestAndALimitSpansPages() {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      TestProbe<ScanReply> probe = testKit.createTestProbe();
      Scan scan = new Scan(ScanRange.prefix(null, b("order/c1/")).reverse().limit(7), 3, 1, probe.ref());
      List<String> seen = new ArrayList<>();
      while (true) {
        db.ref().tell(scan);
        Page page = probe.expectMessageClass(Page.class);
        seen.addAll(keys(page.entries()));
        if (page.last()) {
          break;
        }
        scan = scan.next(page, 2);
      }
      assertEquals(List.of("order/c1/24", "order/c1/23", "order/c1/22", "order/c1/21", "order/c1/20", "order/c1/19",
          "order/c1/18"), seen);
    }
  }

  @Test
  void countsExactlyAndEstimates() {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      TestProbe<CountReply> probe = testKit.createTestProbe();
      db.ref().tell(new Count(ScanRange.prefix(null, b("order/c2/")), false, 5, probe.ref()));
      Counted exact = probe.expectMessageClass(Counted.class);
      assertEquals(5, exact.correlation());
      assertEquals(5, exact.count());
      assertTrue(exact.exact());
      db.ref().tell(new Count(ScanRange.all(null), true, 6, probe.ref()));
      Counted estimate = probe.expectMessageClass(Counted.class);
      assertFalse(estimate.exact());
      assertTrue(estimate.count() >= 0);
      db.ref().tell(new Count(ScanRange.all("no-such-store"), false, 7, probe.ref()));
      assertEquals(0, probe.expectMessageClass(Counted.class).count(), "a store that does not exist is empty");
    }
  }

  @Test
  void keysOnlyPagesCarryNoValuesAndAMissingStoreIsOneEmptyLastPage() {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      TestProbe<ScanReply> probe = testKit.createTestProbe();
      db.ref().tell(new Scan(ScanRange.prefix(null, b("order/c2/")).keysOnly(), 100, 1, probe.ref()));
      Page page = probe.expectMessageClass(Page.class);
      assertEquals(5, page.entries().size());
      assertTrue(page.entries().stream().allMatch(kv -> kv.value() == null));
      assertTrue(page.last());
      db.ref().tell(new Scan(ScanRange.all("no-such-store"), 100, 2, probe.ref()));
      Page empty = probe.expectMessageClass(Page.class);
      assertTrue(empty.entries().isEmpty() && empty.last());
      assertTrue(db.storage().findStore("no-such-store").isEmpty(), "and creates nothing");
    }
  }

  @Test
  void badRangesAndPageSizesAreRefusedWhereTheRequestIsBuilt() {
    TestProbe<ScanReply> probe = testKit.createTestProbe();
    assertThrows(InvalidRequestException.class, () -> ScanRange.all(null).from(b("z")).to(b("a")));
    assertThrows(InvalidRequestException.class, () -> ScanRange.all(null).limit(0));
    assertThrows(InvalidRequestException.class, () -> ScanRange.all("bad name!"));
    assertThrows(InvalidRequestException.class, () -> new Scan(ScanRange.all(null), 0, 1, probe.ref()));
    assertThrows(InvalidRequestException.class, () -> new Scan(ScanRange.all(null), Scan.MAX_PAGE_SIZE + 1, 1, probe.ref()));
    assertThrows(InvalidRequestException.class, () -> new Scan(null, 10, 1, probe.ref()));
  }

  @Test
  void aContinuationThatNoPageReturnedIsRefusedWithOneReply() {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      TestProbe<ScanReply> probe = testKit.createTestProbe();
      db.ref().tell(new Scan(ScanRange.all(null), 10, new byte[] {1}, 1, probe.ref()));
      FailedReply bad = expectFailed(probe);
      assertEquals(FailureReason.INVALID_REQUEST, bad.reason());
      assertEquals(1, bad.correlation());
    }
  }

  /** A caller on the database's own node has no frame to fit: an entry above the page bound is a page of its own. */
  @Test
  void anEntryAboveThePageBoundReachesALocalCallerAsAPageOfItsOwn() {
    try (CommitlaneDatabase db = open()) {
      db.storage().put(b("big/1"), new byte[(int) ReadRequests.PAGE_BYTES + 1]);
      db.storage().put(b("big/2"), b("small"));
      TestProbe<ScanReply> probe = testKit.createTestProbe();
      Scan scan = new Scan(ScanRange.prefix(null, b("big/")), 10, 1, probe.ref());
      db.ref().tell(scan);
      Page first = probe.expectMessageClass(Page.class);
      assertEquals(1, first.entries().size());
      assertEquals(ReadRequests.PAGE_BYTES + 1, first.entries().get(0).value().length);
      db.ref().tell(scan.next(first, 2));
      assertEquals("big/2", s(probe.expectMessageClass(Page.class).entries().get(0).key()));
    }
  }

  /**
   * A continuation belongs to the range whose page returned it: sent with another range (one it
   * lies before, one it lies inside, the same bounds with another limit, direction, values setting
   * or store) it is refused, never taken as a new start or a place inside the other range.
   */
  @Test
  void aContinuationOfAnotherRangeIsRefusedWithOneReply() {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      TestProbe<ScanReply> probe = testKit.createTestProbe();
      ScanRange c1 = ScanRange.prefix(null, b("order/c1/"));
      db.ref().tell(new Scan(c1, 5, 1, probe.ref()));
      Page first = probe.expectMessageClass(Page.class);
      assertFalse(first.last());

      List<ScanRange> others = List.of(ScanRange.prefix(null, b("order/c2/")), ScanRange.all(null), c1.limit(20), c1.reverse(),
          c1.keysOnly(), ScanRange.prefix("other", b("order/c1/")));
      long correlation = 2;
      for (ScanRange other : others) {
        db.ref().tell(new Scan(other, 5, first.continuation(), correlation, probe.ref()));
        FailedReply refused = expectFailed(probe);
        assertEquals(FailureReason.INVALID_REQUEST, refused.reason(), other + ": " + refused);
        assertEquals(correlation++, refused.correlation());
        assertTrue(refused.message().contains("continuation"), refused.message());
      }
      db.ref().tell(new Scan(c1, 7, first.continuation(), correlation, probe.ref()));
      assertEquals("order/c1/05", s(probe.expectMessageClass(Page.class).entries().get(0).key()),
          "the same range goes on after the page, whatever the page size");
    }
  }

  @Test
  void aScanAfterCloseIsAnsweredDatabaseClosed() {
    CommitlaneDatabase db = open();
    ActorRef<Request> ref = db.ref();
    db.close();
    TestProbe<ScanReply> probe = testKit.createTestProbe();
    ref.tell(new Scan(ScanRange.all(null), 10, 9, probe.ref()));
    FailedReply closed = expectFailed(probe, Duration.ofSeconds(10));
    assertEquals(FailureReason.DATABASE_CLOSED, closed.reason());
    assertEquals(9, closed.correlation());
  }

  @Test
  void aRangeSourceStreamsEveryEntryInPagesAndFailsTypedAfterClose() throws Exception {
    try (CommitlaneDatabase db = open()) {
      orders(db);
      List<KeyValue> all = RangeSource.of(db, KeyRange.prefix(b("order/")), 4).runWith(Sink.seq(), testKit.system())
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(30, all.size());
      assertEquals("order/c1/00", s(all.get(0).key()));
      assertEquals("w4", s(all.get(29).value()));
      List<KeyValue> newest = RangeSource.of(db, KeyRange.prefix(b("order/c1/")).reverse().limit(3), 2)
          .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(List.of("order/c1/24", "order/c1/23", "order/c1/22"), keys(newest));
    }
    CommitlaneDatabase closed = open();
    closed.close();
    CompletionException e = assertThrows(CompletionException.class, () -> RangeSource.of(closed, KeyRange.all(), 4)
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().join());
    assertTrue(e.getCause() instanceof DatabaseClosedException, e.toString());
  }
}
