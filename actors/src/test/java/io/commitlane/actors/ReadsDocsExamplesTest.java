package io.commitlane.actors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testsupport.DocSnippets;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.CountReply;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.stream.RangeSource;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The actor-side snippets of docs/reads.md: they run here, and the page holds them verbatim. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ReadsDocsExamplesTest {
  private static final Path PAGE = Path.of("..", "docs", "reads.md");
  private static final Path README = Path.of("..", "README.md");
  private static final Path SOURCE = Path.of("src", "test", "java", "io", "commitlane", "actors", "ReadsDocsExamplesTest.java");

  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  /** A customer's orders: order/c42/00..29 in the "orders" store, each committed with a log record. */
  private CommitlaneDatabase shop() throws Exception {
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir,
        PipelineTestSupport.settings(testKit.system(), Map.of("wal", "off")));
    db.storage().createStore("orders").toCompletableFuture().get(10, TimeUnit.SECONDS);
    for (int i = 0; i < 30; i++) {
      Transaction t = db.begin().useLog("orders");
      t.put(db.storage().store("orders"), String.format("order/c42/%02d", i).getBytes(UTF_8), ("item " + i).getBytes(UTF_8));
      t.addLogEntry(String.format("order/c42/%02d", i).getBytes(UTF_8));
      db.commit(t).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    return db;
  }

  @Test
  void pagesAndCountsThroughTheProtocol() throws Exception {
    try (CommitlaneDatabase db = shop()) {
      ActorRef<Request> database = db.ref();
      TestProbe<ScanReply> replies = testKit.createTestProbe();
      TestProbe<CountReply> counts = testKit.createTestProbe();
      ActorRef<ScanReply> replyTo = replies.ref();
      ActorRef<CountReply> countReplyTo = counts.ref();
      List<KeyValue> newestFirst = new ArrayList<>();
      // docs: scan-pages
      ScanRange newest = ScanRange.prefix("orders", "order/c42/".getBytes(UTF_8)).reverse().limit(20);
      Scan scan = new Scan(newest, 8, 1, replyTo);                  // pages of at most 8 entries
      database.tell(scan);
      Page page = replies.expectMessageClass(Page.class);          // an actor receives it as a message
      newestFirst.addAll(page.entries());
      while (!page.last()) {
        scan = scan.next(page, scan.correlation() + 1);            // resumes after the page's last key
        database.tell(scan);
        page = replies.expectMessageClass(Page.class);
        newestFirst.addAll(page.entries());
      }
      database.tell(new Count(ScanRange.prefix("orders", "order/c42/".getBytes(UTF_8)), false, 9, countReplyTo));
      // end docs
      assertEquals(20, newestFirst.size());
      assertEquals("order/c42/29", new String(newestFirst.get(0).key(), UTF_8));
      assertEquals(30, counts.expectMessageClass(Counted.class).count());
    }
  }

  @Test
  void aRangeAsAStreamAndAProjectionLinedUpWithTheLog() throws Exception {
    ActorSystem<Void> system = testKit.system();
    Map<String, String> projection = new ConcurrentHashMap<>();
    try (CommitlaneDatabase db = shop()) {
      // docs: range-source
      KeyRange orders = KeyRange.prefix("order/".getBytes(UTF_8)).in(db.storage().store("orders"));
      RangeSource.of(db, orders, 1000)
          .runWith(Sink.foreach(kv -> projection.put(new String(kv.key(), UTF_8), new String(kv.value(), UTF_8))), system)
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      // end docs
      assertEquals(30, projection.size());
      projection.clear();

      // docs: feed-snapshot
      Source<LogRecord, NotUsed> changes;
      try (FeedSnapshot start = FeedSnapshot.of(db, "orders")) {
        try (Cursor c = start.view().scan(orders)) {
          c.forEachRemaining(kv -> projection.put(new String(kv.key(), UTF_8), new String(kv.value(), UTF_8)));
        }
        changes = start.changesAfter();   // the log's committed records the view does not hold, in log order
      }
      // end docs
      Transaction more = db.begin().useLog("orders");
      more.put(db.storage().store("orders"), "order/c42/30".getBytes(UTF_8), "item 30".getBytes(UTF_8));
      more.addLogEntry("order/c42/30".getBytes(UTF_8));
      db.commit(more).toCompletableFuture().get(10, TimeUnit.SECONDS);
      LogRecord next = changes.runWith(Sink.head(), system).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals("order/c42/30", UTF_8.decode(next.entries().get(0).duplicate()).toString(), "the first change after the view");
      assertEquals(30, projection.size());
    }
  }

  @Test
  void theReadmesOrdersExampleLists() throws Exception {
    try (CommitlaneDatabase db = shop()) {
      // docs: readme-orders
      KeyRange ordersOfC42 = KeyRange.prefix("order/c42/".getBytes(UTF_8)).in(db.storage().store("orders"));
      List<KeyValue> newest = db.storage().list(ordersOfC42.reverse().limit(20)); // the 20 newest, from one view
      long howMany = db.storage().count(ordersOfC42);                            // exact: 30
      // end docs
      assertEquals(20, newest.size());
      assertEquals("order/c42/29", new String(newest.get(0).key(), UTF_8));
      assertEquals(30, howMany);
    }
  }

  @Test
  void thePagesHoldEverySnippetVerbatim() throws IOException {
    String page = Files.readString(PAGE);
    String readme = Files.readString(README);
    List<String> snippets = DocSnippets.allInSource(Files.readString(SOURCE));
    assertEquals(4, snippets.size());
    for (String s : snippets.subList(0, 3)) {
      assertTrue(page.contains(s), "docs/reads.md lacks this snippet of " + SOURCE + ":\n" + s);
    }
    assertTrue(readme.contains(snippets.get(3)), "README.md lacks this snippet of " + SOURCE + ":\n" + snippets.get(3));
  }
}
