package io.commitlane.actors;

import static io.commitlane.testsupport.DocSnippets.between;
import static io.commitlane.testsupport.DocSnippets.fenced;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.ReadRefused;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.stream.Backoff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The actor examples of {@code docs/actors.md} and the README, compiled and run here; the tests
 * also check that the text there is the code here, between the markers.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ActorDocsExamplesTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  // docs: stock-actor
  /** Stock levels, kept by an actor that holds only the database's reference. */
  static final class Stock extends AbstractBehavior<Stock.Command> {
    sealed interface Command {}

    record Restock(String item, long count, ActorRef<StatusReply<Done>> replyTo) implements Command {}

    /** Take one of {@code item}: never more than there are, however many reserve at once. */
    record Reserve(String item, ActorRef<StatusReply<Done>> replyTo) implements Command {}

    private record Written(WriteReply reply) implements Command {}

    private record Read(ReadReply reply) implements Command {}

    private record Reserved(Reserve request, WriteReply reply) implements Command {}

    private static final Retry RETRY = Retry.onConflict(10, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(20)));

    static Behavior<Command> create(ActorRef<Request> database) {
      return Behaviors.setup(ctx -> new Stock(ctx, database));
    }

    private final ActorRef<Request> database;
    private final ActorRef<WriteReply> writes;                 // one adapter per kind of reply: each gets only its
    private final ActorRef<ReadReply> reads;                   // own requests' replies, refusals included
    private final Map<Long, Restock> restocking = new HashMap<>();  // requests waiting, by correlation
    private final Map<Long, Reserve> reserving = new HashMap<>();
    private long correlation;

    private Stock(ActorContext<Command> ctx, ActorRef<Request> database) {
      super(ctx);
      this.database = database;
      this.writes = ctx.messageAdapter(WriteReply.class, Written::new);
      this.reads = ctx.messageAdapter(ReadReply.class, Read::new);
    }

    @Override
    public Receive<Command> createReceive() {
      return newReceiveBuilder()
          .onMessage(Restock.class, this::onRestock)
          .onMessage(Written.class, this::onWritten)
          .onMessage(Reserve.class, this::onReserve)
          .onMessage(Read.class, this::onRead)
          .onMessage(Reserved.class, this::onReserved)
          .build();
    }

    private Behavior<Command> onRestock(Restock r) {
      long id = ++correlation;
      restocking.put(id, r);
      byte[] key = r.item().getBytes(UTF_8);
      database.tell(new Write(List.of(Mutation.put(key, Long.toString(r.count()).getBytes(UTF_8))),
          LogEntries.of("stock", (r.item() + " restocked to " + r.count()).getBytes(UTF_8)),  // a change-feed record too
          id, writes));
      return this;
    }

    private Behavior<Command> onWritten(Written w) {
      Restock r = restocking.remove(w.reply().correlation());
      r.replyTo().tell(w.reply() instanceof Committed ? StatusReply.ack()
          : StatusReply.error("not restocked: " + w.reply()));      // a WriteRefused says why; nothing was written
      return this;
    }

    private Behavior<Command> onReserve(Reserve r) {
      long id = ++correlation;
      reserving.put(id, r);
      database.tell(new Get(Key.of(r.item().getBytes(UTF_8)), id, reads));
      return this;
    }

    /** Take one of what was read, if it is still there when the write commits; else again, from what is there now. */
    private Behavior<Command> onRead(Read read) {
      Reserve r = reserving.remove(read.reply().correlation());
      if (read.reply() instanceof ReadRefused refused) {        // the database could not read: say why
        r.replyTo().tell(StatusReply.error(refused.message()));
        return this;
      }
      Values v = (Values) read.reply();                         // a ReadReply is Values or ReadRefused
      byte[] key = r.item().getBytes(UTF_8);
      if (level(v.values().get(0)) == 0) {
        r.replyTo().tell(StatusReply.error("out of " + r.item()));
        return this;
      }
      CompletionStage<WriteReply> done = RETRY.write(getContext().getSystem(), database, Duration.ofSeconds(10),
          (attempt, previous, replyTo) -> {                    // runs off this actor's thread: it touches no field
            byte[] seen = previous == null ? v.values().get(0) : previous.actual().get(0).value();  // what the key holds now
            long left = level(seen);
            return left == 0 ? null                            // sold out meanwhile: stop, the conflict is the outcome
                : new ConditionalWrite(List.of(Expectation.value(key, seen)),       // only if it still holds what we saw
                    List.of(Mutation.put(key, Long.toString(left - 1).getBytes(UTF_8))), null, attempt, replyTo);
          });
      getContext().pipeToSelf(done, (reply, failure) -> new Reserved(r, reply));
      return this;
    }

    private Behavior<Command> onReserved(Reserved r) {
      WriteReply reply = r.reply();
      r.request().replyTo().tell(reply instanceof Committed ? StatusReply.ack()
          : reply instanceof WriteRefused refused ? StatusReply.error(refused.message())  // not written: the refusal says why
          : StatusReply.error("out of " + r.request().item()));                          // sold out while it retried
      return this;
    }

    private static long level(byte[] value) {
      return value == null ? 0 : Long.parseLong(new String(value, UTF_8));
    }
  }
  // end docs: stock-actor

  @Test
  void anActorWithOnlyTheReferenceWritesReadsAndConditionallyWrites() throws Exception {
    ActorRef<Request> database = testKit.spawn(DatabaseActor.create(dir.resolve("shop")), "shop");
    ActorRef<Stock.Command> stock = testKit.spawn(Stock.create(database), "stock");
    TestProbe<StatusReply<Done>> restocked = testKit.createTestProbe();
    stock.tell(new Stock.Restock("apple", 3, restocked.ref()));
    assertTrue(restocked.receiveMessage(WAIT).isSuccess());

    List<TestProbe<StatusReply<Done>>> buyers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      TestProbe<StatusReply<Done>> buyer = testKit.createTestProbe();
      buyers.add(buyer);
      stock.tell(new Stock.Reserve("apple", buyer.ref()));
    }
    int taken = 0;
    for (TestProbe<StatusReply<Done>> buyer : buyers) {
      StatusReply<Done> reply = buyer.receiveMessage(WAIT);
      if (reply.isSuccess()) {
        taken++;
      } else {
        assertEquals("out of apple", reply.getError().getMessage());
      }
    }
    assertEquals(3, taken, "three apples, three reservations: never more");
    TestProbe<ReadReply> level = testKit.createTestProbe();
    database.tell(new Get(Key.of("apple".getBytes(UTF_8)), 1, level.ref()));
    assertEquals("0", new String(level.expectMessageClass(Values.class, WAIT).values().get(0), UTF_8));
    testKit.stop(stock);
    testKit.stop(database);
    Commitlane.get(testKit.system()).whenReleased(dir.resolve("shop")).toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
  }

  /**
   * The stock actor against a database it cannot use: its path is held by another actor system
   * (as by another process), so the database actor's open fails and every request is refused.
   * Each refusal reaches the handler of its own request: every caller is answered, the actor
   * keeps running.
   */
  @Test
  void theStockActorAnswersEveryCallerWhenItsDatabaseRefuses() throws Exception {
    Path path = dir.resolve("held");
    ActorTestKit elsewhere = ActorTestKit.create("elsewhere", testKit.system().settings().config());
    try (CommitlaneDatabase holder = Commitlane.get(elsewhere.system()).open(path)) {
      ActorRef<Request> database = testKit.spawn(DatabaseActor.create(path));
      ActorRef<Stock.Command> stock = testKit.spawn(Stock.create(database));
      for (int round = 0; round < 2; round++) { // the second round shows the actor is still there
        TestProbe<StatusReply<Done>> restocked = testKit.createTestProbe();
        TestProbe<StatusReply<Done>> reserved = testKit.createTestProbe();
        stock.tell(new Stock.Restock("apple", 3, restocked.ref()));
        stock.tell(new Stock.Reserve("apple", reserved.ref()));
        StatusReply<Done> r = restocked.receiveMessage(Duration.ofSeconds(10));
        assertTrue(r.isError() && r.getError().getMessage().startsWith("not restocked"), r.toString());
        assertTrue(reserved.receiveMessage(Duration.ofSeconds(10)).isError());
      }
    } finally {
      elsewhere.shutdownTestKit();
    }
  }

  /** Against a read-only database: reads work, each write is refused to the handler of that write, and its caller hears why. */
  @Test
  void theStockActorReportsARefusedWriteToItsCaller() throws Exception {
    Path path = dir.resolve("read-only");
    ActorRef<Request> writable = testKit.spawn(DatabaseActor.create(path));
    ActorRef<Stock.Command> seeding = testKit.spawn(Stock.create(writable));
    TestProbe<StatusReply<Done>> restocked = testKit.createTestProbe();
    seeding.tell(new Stock.Restock("apple", 3, restocked.ref()));
    assertTrue(restocked.receiveMessage(WAIT).isSuccess());
    testKit.stop(seeding);
    testKit.stop(writable);
    Commitlane.get(testKit.system()).whenReleased(path).toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);

    try (CommitlaneDatabase readOnly = Commitlane.get(testKit.system()).openReadOnly(path)) {
      ActorRef<Stock.Command> stock = testKit.spawn(Stock.create(readOnly.ref()));
      TestProbe<StatusReply<Done>> caller = testKit.createTestProbe();
      stock.tell(new Stock.Restock("apple", 5, caller.ref()));
      StatusReply<Done> r = caller.receiveMessage(Duration.ofSeconds(10));
      assertTrue(r.isError() && r.getError().getMessage().contains("READ_ONLY"), r.toString());
      stock.tell(new Stock.Reserve("apple", caller.ref()));
      StatusReply<Done> v = caller.receiveMessage(Duration.ofSeconds(10));
      assertTrue(v.isError() && v.getError().getMessage().contains("read-only"), "not \"out of apple\": " + v);
    }
  }

  /** The README's actor snippet, run inside a guardian of the test's. */
  @Test
  void readmeActorSnippet() throws Exception {
    Path path = dir.resolve("orders");
    TestProbe<WriteReply> probe = testKit.createTestProbe();
    ActorRef<WriteReply> replies = probe.ref();
    testKit.spawn(Behaviors.<Void>setup(context -> {
      // README: actor-protocol
      // In your guardian: spawn the database, hand its reference to the actors that use it.
      ActorRef<DatabaseProtocol.Request> orders = context.spawn(DatabaseActor.create(path), "orders");
      orders.tell(new DatabaseProtocol.Write(
          List.of(Mutation.put("order-1".getBytes(UTF_8), "paid".getBytes(UTF_8))),
          LogEntries.of("orders", "order-1 paid".getBytes(UTF_8)),  // also a change-feed record
          1L,                                                      // the correlation: comes back in the reply
          replies));                                               // exactly one WriteReply: Committed, Conflicted, WriteRefused
      // end README
      return Behaviors.empty();
    }));
    Committed committed = probe.expectMessageClass(Committed.class, WAIT);
    assertEquals(1L, committed.correlation());
    assertTrue(committed.logPosition() >= 0);
  }

  @Test
  void theDocsShowTheCodeThatRunsHere() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    String source = Files.readString(Path.of("src/test/java/io/commitlane/actors/ActorDocsExamplesTest.java"));
    String readme = between(source, "// README: actor-protocol\n", "// end README\n");
    assertEquals(readme, fenced(Files.readString(root.resolve("README.md")), "<!-- README: actor-protocol"));
    assertEquals(readme, fenced(Files.readString(root.resolve("docs/actors.md")), "<!-- docs: first-example"));
    assertEquals(between(source, "// docs: stock-actor\n", "// end docs: stock-actor\n"),
        fenced(Files.readString(root.resolve("docs/actors.md")), "<!-- docs: stock-actor"));
  }
}
