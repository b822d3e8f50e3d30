package io.commitlane.actors.projection;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.testsupport.DocSnippets;
import io.commitlane.txlog.LogRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The snippets of docs/projections.md run here, and the page shows them as they are here. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ProjectionDocsExamplesTest {
  private static final Path SOURCE = Path.of("src/test/java/io/commitlane/actors/projection/ProjectionDocsExamplesTest.java");
  private static final Path PAGE = DocSnippets.root().resolve("docs/projections.md");

  @JUnit5TestKit static ActorTestKit testKit;
  private static ActorSystem<?> system;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    system = testKit.system();
  }

  private int placed;

  /** {@code n} more orders of customers c1..c3 in turn, one logged commit each: the log record's entry is the customer. */
  private void placeOrders(CommitlaneDatabase db, int n) throws Exception {
    for (int i = placed + 1; i <= placed + n; i++) {
      Transaction t = db.begin().useLog("orders").addLogEntry(("c" + (i % 3 + 1)).getBytes(UTF_8));
      t.put(("order/" + i).getBytes(UTF_8), "placed".getBytes(UTF_8));
      db.commit(t).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    placed += n;
  }

  private static Projection<LogRecord, Transaction> orderCounts(CommitlaneDatabase db) throws Exception {
    // docs: first-example
    Store counts = db.createStore("order-counts").toCompletableFuture().get(10, TimeUnit.SECONDS);
    Projection<LogRecord, Transaction> orderCounts = LocalProjection.of(db, "order-counts", "orders", (txn, records) -> {
      for (LogRecord record : records) {                       // a batch, in log order
        byte[] customer = new byte[record.entries().get(0).remaining()];
        record.entries().get(0).duplicate().get(customer);
        byte[] n = txn.get(counts, customer);                   // read and written in the batch's transaction,
        long next = n == null ? 1 : Long.parseLong(new String(n, UTF_8)) + 1;
        txn.put(counts, customer, Long.toString(next).getBytes(UTF_8)); // which also stores the projection's position
      }
    }).withSettings(ProjectionSettings.fromConfig(system));    // commitlane.projection { ... }
    // end docs: first-example
    return orderCounts;
  }

  @Test
  void firstExample() throws Exception {
    try (CommitlaneDatabase db = Orders.open(system, dir, Map.of())) {
      placeOrders(db, 9);
      Projection<LogRecord, Transaction> orderCounts = orderCounts(db);
      placeOrders(db, 1); // order 10
      long position = Orders.lastPosition(db, system);
      // docs: run
      ProjectionControl running = orderCounts.run(system);       // from the stored position: after a crash too
      running.whenThrough(position)                               // the count holds the order at this log position
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      // end docs: run
      // docs: status
      ProjectionStatus status = running.status();                 // position, lag, batches, records, conflicts, restarts, lastError
      running.stop().toCompletableFuture().get(30, TimeUnit.SECONDS); // after the batch it is committing, if any
      // end docs: status
      assertEquals("order-counts", status.projection());
      Store counts = db.storage().store("order-counts");
      assertEquals(List.of("3", "4", "3"), List.of("c1", "c2", "c3").stream() // order i is of customer c(i % 3 + 1)
          .map(c -> new String(db.storage().get(counts, c.getBytes(UTF_8)), UTF_8)).toList());
    }
  }

  @Test
  void asAStream() throws Exception {
    try (CommitlaneDatabase db = Orders.open(system, dir, Map.of())) {
      placeOrders(db, 6);
      Projection<LogRecord, Transaction> orderCounts = orderCounts(db);
      List<String> notified = new ArrayList<>();
      // docs: stream
      CompletionStage<Done> done = orderCounts.source()          // one element per batch that committed
          .map(batch -> batch.records().size() + " orders counted through position " + batch.position())
          .take(1)                                                // a real stream runs until it is cancelled
          .runForeach(notified::add, system);                     // a full downstream holds the projection back
      // end docs: stream
      done.toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals(List.of("6 orders counted through position " + Orders.lastPosition(db, system)), notified);
    }
  }

  @Test
  void asAnActor() throws Exception {
    try (CommitlaneDatabase db = Orders.open(system, dir, Map.of())) {
      placeOrders(db, 3);
      Projection<LogRecord, Transaction> orderCounts = orderCounts(db);
      TestProbe<ProjectionStatus> statusProbe = testKit.createTestProbe();
      TestProbe<Done> stopProbe = testKit.createTestProbe();
      ActorRef<ProjectionStatus> statusReplies = statusProbe.ref();
      ActorRef<Done> stopped = stopProbe.ref();
      testKit.spawn(Behaviors.setup(context -> {
        // docs: actor
        ActorRef<ProjectionActor.Command> counter = context.spawn(ProjectionActor.create(orderCounts), "order-counts");
        counter.tell(new ProjectionActor.GetStatus(statusReplies));    // a ProjectionStatus
        counter.tell(new ProjectionActor.Stop(stopped));               // Done once stopped; then the actor stops
        // end docs: actor
        return Behaviors.empty();
      }));
      assertEquals("order-counts", statusProbe.receiveMessage().projection());
      stopProbe.expectMessage(Done.getInstance());
    }
  }

  @Test
  void thePageShowsEverySnippetAsItRuns() {
    for (String name : List.of("first-example", "run", "status", "stream", "actor")) {
      DocSnippets.assertShown(SOURCE, PAGE, name);
    }
  }
}
