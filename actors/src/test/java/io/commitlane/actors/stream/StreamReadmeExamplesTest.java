package io.commitlane.actors.stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.projection.LocalProjection;
import io.commitlane.actors.projection.ProjectionBatch;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.testsupport.DocSnippets;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's stream snippets, verbatim between the markers, and an actor that commits the
 * transactions it builds through a facade handle (the protocol-only actor is in
 * ActorDocsExamplesTest).
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class StreamReadmeExamplesTest {
  @JUnit5TestKit static ActorTestKit testKit;
  private static ActorSystem<?> system;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() {
    system = testKit.system();
  }


  // An actor with a facade handle: it builds its own transactions (tracked reads) and gets protocol replies.
  /** Account balances: each deposit is a read-modify-write transaction committed off the actor's thread. */
  static final class Accounts extends AbstractBehavior<Accounts.Command> {
    sealed interface Command {}

    record Deposit(String account, long amount, ActorRef<StatusReply<Done>> replyTo) implements Command {}

    private record WrappedReply(DatabaseProtocol.WriteReply reply) implements Command {}

    static Behavior<Command> create(CommitlaneDatabase db) {
      return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new Accounts(ctx, timers, db)));
    }

    private final CommitlaneDatabase db;
    private final TimerScheduler<Command> timers;
    private final ActorRef<DatabaseProtocol.WriteReply> replies;  // one adapter for every commit of this actor
    private final Map<Long, Deposit> pending = new HashMap<>();     // by correlation
    private long nextCorrelation;

    private Accounts(ActorContext<Command> ctx, TimerScheduler<Command> timers, CommitlaneDatabase db) {
      super(ctx);
      this.db = db;
      this.timers = timers;
      this.replies = ctx.messageAdapter(DatabaseProtocol.WriteReply.class, WrappedReply::new);
    }

    @Override
    public Receive<Command> createReceive() {
      return newReceiveBuilder()
          .onMessage(Deposit.class, this::onDeposit)
          .onMessage(WrappedReply.class, this::onReply)
          .build();
    }

    private Behavior<Command> onDeposit(Deposit d) {
      Transaction txn = db.begin();
      byte[] key = d.account().getBytes(UTF_8);
      byte[] old = txn.get(key);                             // tracked: a concurrent change makes the commit conflict
      long balance = (old == null ? 0 : Long.parseLong(new String(old, UTF_8))) + d.amount();
      txn.put(key, Long.toString(balance).getBytes(UTF_8));
      long correlation = ++nextCorrelation;
      pending.put(correlation, d);
      db.commit(txn, correlation, replies);                  // returns at once; exactly one WriteReply follows
      return this;
    }

    private Behavior<Command> onReply(WrappedReply w) {
      Deposit d = pending.remove(w.reply().correlation());
      if (w.reply() instanceof DatabaseProtocol.Committed) {
        d.replyTo().tell(StatusReply.ack());
      } else if (w.reply() instanceof DatabaseProtocol.Conflicted) {
        getContext().getSelf().tell(d);                      // nothing was written: read again, apply again
      } else if (w.reply() instanceof DatabaseProtocol.WriteRefused r && r.is(DatabaseProtocol.FailureReason.OVERLOADED)) {
        timers.startSingleTimer(w.reply().correlation(), d, Duration.ofMillis(5));  // queue full: try again shortly
      } else if (w.reply() instanceof DatabaseProtocol.WriteRefused refused) {
        d.replyTo().tell(StatusReply.error(refused.message()));
      }
      return this;
    }
  }

  @Test
  void anActorCommitsAndHandlesTypedReplies() throws Exception {
    try (CommitlaneDatabase db = StreamTestSupport.open(system, dir, Map.of("commit-threads", 2))) {
      ActorRef<Accounts.Command> accounts = testKit.spawn(Accounts.create(db));
      TestProbe<StatusReply<Done>> probe = testKit.createTestProbe();
      for (int i = 1; i <= 50; i++) {
        accounts.tell(new Accounts.Deposit(i % 2 == 0 ? "alice" : "bob", i, probe.ref()));
      }
      for (int i = 0; i < 50; i++) {
        assertTrue(probe.receiveMessage(Duration.ofSeconds(30)).isSuccess());
      }
      assertEquals(Integer.toString(2 + 4 + 6 + 8 + 10 + 12 + 14 + 16 + 18 + 20 + 22 + 24 + 26 + 28 + 30 + 32 + 34 + 36 + 38 + 40
          + 42 + 44 + 46 + 48 + 50), StreamTestSupport.s(db.storage().get("alice".getBytes(UTF_8))));
      assertEquals(Integer.toString(25 * 25), StreamTestSupport.s(db.storage().get("bob".getBytes(UTF_8))));
    }
  }

  @Test
  void aStreamCommitsRequestsWithBackpressure() throws Exception {
    CommitlaneDatabase db = Commitlane.get(system).open(dir);
    List<String> failures = new ArrayList<>();
    // README: stream-commit-flow
    CompletionStage<Done> done = Source.range(1, 1_000)
        .map(i -> WriteRequest.builder("order-" + i)           // the correlation value comes back with the outcome
            .put(("order-" + i).getBytes(UTF_8), "placed".getBytes(UTF_8))
            .log("orders").logEntry(("order-" + i + " placed").getBytes(UTF_8))
            .build())
        .via(CommitFlow.ordered(db, CommitFlowSettings.defaults()
            .withParallelism(16)                                 // at most 16 requests taken and not yet emitted
            .withConflictRetry(ConflictRetry.defaults())))       // 4 attempts, 1..100 ms backoff
        .runForeach(outcome -> {
          if (outcome instanceof WriteOutcome.Failed<String> failed) {
            failures.add(failed.correlation() + ": " + failed.cause());
          }
        }, system);                                              // a full commit queue slows the source, never fails it
    // end README
    done.toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertEquals(List.of(), failures);
    assertEquals("placed", StreamTestSupport.s(db.storage().get("order-1000".getBytes(UTF_8))));
    db.close();
  }

  @Test
  void aStreamIngestsGeneratedRecords() throws Exception {
    CommitlaneDatabase db = Commitlane.get(system).open(dir);
    // README: stream-ingest
    byte[] payload = new byte[100];
    CompletionStage<IngestTotals> totals = Source.range(1, 100_000)
        .map(i -> new KeyValue(("event-" + i).getBytes(UTF_8), payload))
        .runWith(Ingest.sink(db, IngestSettings.defaults()
            .withMaxRecords(1_000)                              // per transaction, at most
            .withMaxBytes(1 << 20)),                            // bytes per transaction, at most
            system);
    IngestTotals t = totals.toCompletableFuture().get(60, TimeUnit.SECONDS);
    // t.records() == 100_000; on a failed batch the stage fails with IngestFailedException, whose
    // totals().committedPrefix() says where to resume
    // end README
    assertEquals(100_000, t.records());
    long keyBytes = 0;
    for (int i = 1; i <= 100_000; i++) {
      keyBytes += ("event-" + i).length();
    }
    assertEquals(keyBytes + 100_000L * 100, t.bytes());
    assertTrue(t.transactions() >= 100);
    assertEquals(100, db.storage().get("event-100000".getBytes(UTF_8)).length);
    db.close();
  }

  @Test
  void aConsumerTailsTheChangeFeed() throws Exception {
    CommitlaneDatabase db = Commitlane.get(system).open(dir);
    List<String> handled = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    Source.range(1, 5).map(i -> WriteRequest.builder(i).put(("k" + i).getBytes(UTF_8), new byte[1])
        .log("orders").logEntry(("order-" + i).getBytes(UTF_8)).build())
        .via(CommitFlow.ordered(db)).runWith(Sink.ignore(), system).toCompletableFuture().get(30, TimeUnit.SECONDS);
    // docs: stream-change-feed
    Store shipping = db.createStore("shipping").toCompletableFuture().get(10, TimeUnit.SECONDS);
    CompletionStage<Done> tail = LocalProjection.of(db, "shipping-list", "orders", (txn, records) -> {
          for (LogRecord record : records) {                       // committed records, in log order
            byte[] order = new byte[record.entries().get(0).remaining()];
            record.entries().get(0).duplicate().get(order);
            txn.put(shipping, order, "to ship".getBytes(UTF_8));   // in one transaction with the stored position
          }
        })
        .source()                                                  // from the stored position, then records as they land
        .mapConcat(ProjectionBatch::records)                       // once their batch committed
        .map(record -> UTF_8.decode(record.entries().get(0).duplicate()).toString())
        .take(10)                                                  // a real consumer runs until cancelled
        .runForeach(handled::add, system);
    // end docs: stream-change-feed
    // docs: stream-change-feed-plain
    CompletionStage<Done> watched = ChangeFeed.live(db, "orders", ReadRequest.fromStart()) // committed records, then new ones
        .map(record -> UTF_8.decode(record.entries().get(0).duplicate()).toString())
        .take(10)
        .runForeach(seen::add, system);                            // keeps no position: a restart starts over
    // end docs: stream-change-feed-plain
    Source.range(6, 10).map(i -> WriteRequest.builder(i).put(("k" + i).getBytes(UTF_8), new byte[1])
        .log("orders").logEntry(("order-" + i).getBytes(UTF_8)).build())
        .via(CommitFlow.ordered(db)).runWith(Sink.ignore(), system);
    tail.toCompletableFuture().get(30, TimeUnit.SECONDS);
    watched.toCompletableFuture().get(30, TimeUnit.SECONDS);
    List<String> inLogOrder = ChangeFeed.current(db, "orders", ReadRequest.fromStart())
        .map(r -> UTF_8.decode(r.entries().get(0).duplicate()).toString())
        .runWith(Sink.seq(), system).toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertEquals(10, inLogOrder.size());
    assertEquals(inLogOrder, handled, "every record once, in log order");
    assertEquals(inLogOrder, seen);
    Store shippingStore = db.storage().store("shipping");
    for (String order : inLogOrder) {
      assertEquals("to ship", new String(db.storage().get(shippingStore, order.getBytes(UTF_8)), UTF_8), order);
    }
    db.close();
  }

  @Test
  void theStreamsPageShowsTheChangeFeedSnippetsAsTheyRun() {
    Path source = Path.of("src/test/java/io/commitlane/actors/stream/StreamReadmeExamplesTest.java");
    Path page = DocSnippets.root().resolve("docs/streams.md");
    DocSnippets.assertShown(source, page, "stream-change-feed");
    DocSnippets.assertShown(source, page, "stream-change-feed-plain");
  }
}
