package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.ConflictCause;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedOpened;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.storage.CommitStage;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

/** The protocol on a database's reference: every request answered once, with its correlation. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class DatabaseProtocolTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  @TempDir
  Path copies;

  private CommitlaneDatabase open(Map<String, Object> more) {
    Map<String, Object> m = new java.util.HashMap<>(more);
    m.put("wal", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  @Test
  void writesReadsAndConditionalWritesCarryTheirCorrelation() {
    try (CommitlaneDatabase db = open(Map.of())) {
      ActorRef<Request> ref = db.ref();
      TestProbe<WriteReply> writes = testKit.createTestProbe();
      TestProbe<ReadReply> reads = testKit.createTestProbe();

      ref.tell(new Write(List.of(Mutation.put(b("a"), b("1")), Mutation.put("users", b("u"), b("x"))),
          LogEntries.of("orders", b("a=1")), 1, writes.ref()));
      Committed first = writes.expectMessageClass(Committed.class);
      assertEquals(1, first.correlation());
      assertEquals(0, first.stamp().ownerEpoch());
      assertTrue(first.logPosition() >= 0, "the write logged a record");

      ref.tell(new Get(Key.of(b("a")), 2, reads.ref()));
      Values a = reads.expectMessageClass(Values.class);
      assertEquals(2, a.correlation());
      assertEquals("1", s(a.values().get(0)));
      ref.tell(new MultiGet(List.of(Key.of(b("a")), Key.of("users", b("u")), Key.of(b("none")), Key.of("no-such-store", b("a"))), 3,
          reads.ref()));
      Values many = reads.expectMessageClass(Values.class);
      assertEquals(3, many.correlation());
      assertEquals("1", s(many.values().get(0)));
      assertEquals("x", s(many.values().get(1)));
      assertNull(many.values().get(2));
      assertNull(many.values().get(3), "a read of a store that does not exist finds nothing");
      assertTrue(db.storage().findStore("no-such-store").isEmpty(), "and creates nothing");

      ref.tell(new ConditionalWrite(List.of(Expectation.value(b("a"), b("0"))), List.of(Mutation.put(b("a"), b("2"))), null, 4,
          writes.ref()));
      Conflicted stale = writes.expectMessageClass(Conflicted.class);
      assertEquals(4, stale.correlation());
      assertEquals(ConflictCause.EXPECTATIONS, stale.cause());
      assertArrayEquals(b("1"), stale.actual().get(0).value(), "the reply says what the key holds now");
      assertEquals("1", s(db.storage().get(b("a"))), "nothing was written");

      ref.tell(new ConditionalWrite(List.of(stale.actual().get(0), Expectation.absent(b("b"))),
          List.of(Mutation.put(b("a"), b("2")), Mutation.put(b("b"), b("new"))), null, 5, writes.ref()));
      Committed cas = writes.expectMessageClass(Committed.class);
      assertEquals(5, cas.correlation());
      assertTrue(cas.stamp().version() > first.stamp().version());
      assertEquals(-1, cas.logPosition());
      assertEquals("2", s(db.storage().get(b("a"))));
      assertEquals("new", s(db.storage().get(b("b"))));
    }
  }

  /** Expectations hold when read, but another commit changes a key before validation: it conflicts, typed. */
  @Test
  void aConditionalWriteIsValidatedAtCommitLikeATrackedRead() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("write-groups.enabled", "off"))) {
      db.storage().put(b("k"), b("v1"));
      TestProbe<WriteReply> writes = testKit.createTestProbe();
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.DEQUEUED, c -> true);
        db.ref().tell(new ConditionalWrite(List.of(Expectation.value(b("k"), b("v1"))), List.of(Mutation.put(b("k"), b("v2"))), null, 9,
            writes.ref()));
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // read and found v1; not validated yet
        db.storage().put(b("k"), b("other"));
        hold.release();
      }
      Conflicted c = writes.expectMessageClass(Conflicted.class);
      assertEquals(9, c.correlation());
      assertEquals(ConflictCause.VALIDATION, c.cause());
      assertEquals(1, c.attempts(), "a local database tries once");
      assertEquals("other", s(c.actual().get(0).value()), "what the key holds now, read after the conflict");
      assertEquals("other", s(db.storage().get(b("k"))));
    }
  }

  @Test
  void badRequestsFailTypedWhereTheyAreBuilt() {
    ActorRef<WriteReply> nobody = testKit.<WriteReply>createTestProbe().ref();
    assertThrows(InvalidRequestException.class, () -> new Write(List.of(), null, 1, nobody));
    assertThrows(InvalidRequestException.class, () -> Mutation.put(b("k"), null));
    assertThrows(InvalidRequestException.class, () -> Mutation.put("bad/store", b("k"), b("v")));
    assertThrows(InvalidRequestException.class, () -> LogEntries.of(".hidden"));
    assertThrows(InvalidRequestException.class, () -> new Get(null, 1, testKit.<ReadReply>createTestProbe().ref()));
  }

  @Test
  void aChangeFeedOpensOverTheProtocolLocallyToo() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      TestProbe<WriteReply> writes = testKit.createTestProbe();
      for (int i = 0; i < 3; i++) {
        db.ref().tell(new Write(List.of(Mutation.put(b("o" + i), b("placed"))), LogEntries.of("orders", b("order " + i)), i, writes.ref()));
        writes.expectMessageClass(Committed.class);
      }
      TestProbe<DatabaseProtocol.FeedReply> feeds = testKit.createTestProbe();
      db.ref().tell(new OpenChangeFeed("orders", -1, 7, feeds.ref()));
      FeedOpened opened = feeds.expectMessageClass(FeedOpened.class);
      assertEquals(7, opened.correlation());
      List<ChangeRecord> records = opened.feed().getSource().take(3).runWith(Sink.seq(), testKit.system())
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals("order 2", s(records.get(2).entries().get(0)));
    }
  }

  /**
   * Opening a feed is a read: of a log the database does not have it is refused, typed, and
   * creates nothing (no directory, no lock file, nothing a checkpoint would then carry), over the
   * protocol and through the Java API alike.
   */
  @Test
  void aChangeFeedOfAnUnknownLogIsRefusedAndCreatesNothing() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      TestProbe<WriteReply> writes = testKit.createTestProbe();
      db.ref().tell(new Write(List.of(Mutation.put(b("o"), b("placed"))), LogEntries.of("orders", b("order")), 1, writes.ref()));
      writes.expectMessageClass(Committed.class);

      TestProbe<DatabaseProtocol.FeedReply> feeds = testKit.createTestProbe();
      db.ref().tell(new OpenChangeFeed("ordres", -1, 2, feeds.ref()));
      FailedReply refused = expectFailed(feeds);
      assertEquals(FailureReason.UNKNOWN_LOG, refused.reason(), refused.toString());
      assertEquals(2, refused.correlation());
      assertTrue(refused.message().contains("ordres") && refused.message().contains("orders"),
          "names the log asked for and the logs there are: " + refused.message());

      java.util.concurrent.CompletionStage<List<io.commitlane.txlog.LogRecord>> live = io.commitlane.actors.stream.ChangeFeed
          .live(db, "ordres", io.commitlane.txlog.ReadRequest.fromStart()).runWith(Sink.seq(), testKit.system());
      java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
          () -> live.toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertEquals("ordres", assertInstanceOf(UnknownLogException.class, e.getCause()).log());
      assertThrows(UnknownLogException.class, () -> FeedSnapshot.of(db, "ordres"));
      assertThrows(UnknownLogException.class, () -> db.transactionLog("ordres"));

      assertTrue(java.nio.file.Files.notExists(dir.resolve("txlog").resolve("ordres")), "nothing created under txlog/");
      Path copy = copies.resolve("checkpoint");
      db.checkpoint(copy).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertTrue(java.nio.file.Files.notExists(copy.resolve("txlog").resolve("ordres")), "nor in a checkpoint");

      db.ref().tell(new OpenChangeFeed("later", -1, true, 3, feeds.ref()));
      assertEquals(3, feeds.expectMessageClass(FeedOpened.class).correlation(), "asked for, the log is created");
      assertTrue(java.nio.file.Files.isDirectory(dir.resolve("txlog").resolve("later")));
    }
  }

  @Test
  void closedDatabasesAnswerFailedDatabaseClosed() {
    CommitlaneDatabase db = open(Map.of());
    ActorRef<Request> ref = db.ref();
    db.close();
    TestProbe<WriteReply> writes = testKit.createTestProbe();
    ref.tell(new Write(List.of(Mutation.put(b("k"), b("v"))), null, 21, writes.ref()));
    FailedReply f = expectFailed(writes, Duration.ofSeconds(30));
    assertEquals(21, f.correlation());
    assertEquals(FailureReason.DATABASE_CLOSED, f.reason());
  }
}
