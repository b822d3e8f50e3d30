package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol.Backup;
import io.commitlane.actors.DatabaseProtocol.BackupReply;
import io.commitlane.actors.DatabaseProtocol.Checkpoint;
import io.commitlane.actors.DatabaseProtocol.CheckpointReply;
import io.commitlane.actors.DatabaseProtocol.ConditionalWrite;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.CountReply;
import io.commitlane.actors.DatabaseProtocol.CreateStore;
import io.commitlane.actors.DatabaseProtocol.DropStore;
import io.commitlane.actors.DatabaseProtocol.FeedReply;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.GetStats;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.OpenChangeFeed;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.DatabaseProtocol.StatsReply;
import io.commitlane.actors.DatabaseProtocol.StoreReply;
import io.commitlane.actors.DatabaseProtocol.Write;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.storage.CommitStage;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refusal reaches the handler of the request that caused it: an actor with one message adapter
 * per reply family (Pekko delivers to the last-registered adapter whose class matches) gets every
 * kind of request refused in every way (the database closed, its opening buffer full, its actor
 * stopped, its open failed) on the adapter of that request's family, whatever order the adapters
 * were registered in.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class RefusalRoutingTest {
  @JUnit5TestKit static ActorTestKit testKit;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** The reply family of each request kind. */
  static final Map<Class<? extends Request>, Class<? extends Reply>> FAMILY = new LinkedHashMap<>();

  static {
    FAMILY.put(Write.class, WriteReply.class);
    FAMILY.put(ConditionalWrite.class, WriteReply.class);
    FAMILY.put(Get.class, ReadReply.class);
    FAMILY.put(MultiGet.class, ReadReply.class);
    FAMILY.put(Scan.class, ScanReply.class);
    FAMILY.put(Count.class, CountReply.class);
    FAMILY.put(CreateStore.class, StoreReply.class);
    FAMILY.put(DropStore.class, StoreReply.class);
    FAMILY.put(GetStats.class, StatsReply.class);
    FAMILY.put(OpenChangeFeed.class, FeedReply.class);
    FAMILY.put(Backup.class, BackupReply.class);
    FAMILY.put(Checkpoint.class, CheckpointReply.class);
  }

  /** What one adapter received: its family and the reply. */
  record Got(Class<? extends Reply> family, Reply reply) {}

  /**
   * An actor that registers a message adapter for each family in {@code order}, tells {@code
   * adapters} the adapters, and passes on what each receives, tagged with the adapter's family.
   */
  static Behavior<Got> families(List<Class<? extends Reply>> order, ActorRef<Map<Class<?>, ActorRef<?>>> adapters,
      ActorRef<Got> got) {
    return Behaviors.setup(ctx -> {
      Map<Class<?>, ActorRef<?>> byFamily = new HashMap<>();
      for (Class<? extends Reply> family : order) {
        byFamily.put(family, ctx.messageAdapter(family, reply -> new Got(family, reply)));
      }
      adapters.tell(byFamily);
      return Behaviors.receiveMessage(g -> {
        got.tell(g);
        return Behaviors.same();
      });
    });
  }

  /** Every order the test registers adapters in: each family last once, forwards and backwards. */
  static List<List<Class<? extends Reply>>> orders() {
    List<Class<? extends Reply>> families = new ArrayList<>(new java.util.LinkedHashSet<>(FAMILY.values()));
    List<List<Class<? extends Reply>>> orders = new ArrayList<>();
    for (int i = 0; i < families.size(); i++) {
      List<Class<? extends Reply>> rotated = new ArrayList<>(families);
      Collections.rotate(rotated, i);
      orders.add(rotated);
      List<Class<? extends Reply>> reversed = new ArrayList<>(rotated);
      Collections.reverse(reversed);
      orders.add(reversed);
    }
    return orders;
  }

  /** One request of each kind, built around the adapter of its family. */
  private List<Request> everyKind(Map<Class<?>, ActorRef<?>> adapters, long base) {
    byte[] k = b("k");
    List<Request> all = new ArrayList<>();
    long c = base;
    all.add(new Write(List.of(Mutation.put(k, k)), null, c++, to(adapters, WriteReply.class)));
    all.add(new ConditionalWrite(List.of(Expectation.absent(k)), List.of(Mutation.put(k, k)), null, c++, to(adapters, WriteReply.class)));
    all.add(new Get(Key.of(k), c++, to(adapters, ReadReply.class)));
    all.add(new MultiGet(List.of(Key.of(k)), c++, to(adapters, ReadReply.class)));
    all.add(new Scan(ScanRange.all(null), 10, c++, to(adapters, ScanReply.class)));
    all.add(new Count(ScanRange.all(null), false, c++, to(adapters, CountReply.class)));
    all.add(new CreateStore("orders", c++, to(adapters, StoreReply.class)));
    all.add(new DropStore("orders", c++, to(adapters, StoreReply.class)));
    all.add(new GetStats(c++, to(adapters, StatsReply.class)));
    all.add(new OpenChangeFeed("events", -1, true, c++, to(adapters, FeedReply.class)));
    all.add(new Backup(dir.resolve("backups"), c++, to(adapters, BackupReply.class)));
    all.add(new Checkpoint(dir.resolve("checkpoint"), c++, to(adapters, CheckpointReply.class)));
    assertEquals(FAMILY.keySet(), Set.copyOf(all.stream().map(Request::getClass).toList()), "a request kind is missing here");
    return all;
  }

  @SuppressWarnings("unchecked")
  private static <T> ActorRef<T> to(Map<Class<?>, ActorRef<?>> adapters, Class<T> family) {
    return (ActorRef<T>) adapters.get(family);
  }

  /**
   * For each adapter order: send every kind of request to {@code database} (from {@code
   * send(adapters, base)}, which returns the requests sent) and check each reply reached the
   * adapter of its request's family, carries its correlation and says what {@code refused} wants.
   */
  private void assertRoutedInEveryOrder(BiFunction<Map<Class<?>, ActorRef<?>>, Long, List<Request>> send,
      java.util.function.Predicate<Reply> refused) {
    long base = 1_000;
    for (List<Class<? extends Reply>> order : orders()) {
      TestProbe<Map<Class<?>, ActorRef<?>>> adapters = testKit.createTestProbe();
      TestProbe<Got> got = testKit.createTestProbe();
      ActorRef<Got> actor = testKit.spawn(families(order, adapters.ref(), got.ref()));
      List<Request> sent = send.apply(adapters.receiveMessage(WAIT), base);
      Map<Long, Request> byCorrelation = new HashMap<>();
      sent.forEach(r -> byCorrelation.put(r.correlation(), r));
      for (int i = 0; i < sent.size(); i++) {
        Got g = got.receiveMessage(WAIT);
        Request r = byCorrelation.remove(g.reply().correlation());
        assertTrue(r != null, "a reply to no request sent, or a second reply: " + g);
        String what = r.getClass().getSimpleName() + " with adapters registered in " + order.stream().map(Class::getSimpleName).toList();
        assertEquals(FAMILY.get(r.getClass()), g.family(), what + ": its reply reached another family's adapter: " + g.reply());
        assertEquals(r.refused(new DatabaseProtocol.Failed(DatabaseProtocol.FailureReason.STORAGE, "", false)).getClass(),
            g.reply().getClass(), what + ": the refusal of its own family");
        assertTrue(refused.test(g.reply()), what + ": " + g.reply());
      }
      got.expectNoMessage(Duration.ofMillis(20));
      testKit.stop(actor);
      base += 1_000;
    }
  }

  private static java.util.function.Predicate<Reply> failedWith(DatabaseProtocol.FailureReason reason, String inMessage) {
    return reply -> reply instanceof DatabaseProtocol.RefusedReply r && r.is(reason) && r.message().contains(inMessage);
  }

  @Test
  void aClosedDatabasesRefusalsReachTheirOwnAdapters() {
    CommitlaneDatabase db = Commitlane.get(testKit.system()).open(dir.resolve("db"), settings(testKit.system(), Map.of("wal", "off")));
    ActorRef<Request> ref = db.ref();
    db.close();
    assertRoutedInEveryOrder((adapters, base) -> {
      List<Request> all = everyKind(adapters, base);
      all.forEach(ref::tell);
      return all;
    }, failedWith(DatabaseProtocol.FailureReason.DATABASE_CLOSED, "closed"));
  }

  @Test
  void aStoppedDatabaseActorsRefusalsReachTheirOwnAdapters() {
    ActorRef<Request> database = testKit.spawn(DatabaseActor.create(dir.resolve("stopped")));
    TestProbe<Object> watcher = testKit.createTestProbe();
    testKit.stop(database);
    watcher.expectTerminated(database, WAIT);
    assertRoutedInEveryOrder((adapters, base) -> {
      List<Request> all = everyKind(adapters, base);
      all.forEach(database::tell);
      return all;
    }, failedWith(DatabaseProtocol.FailureReason.DATABASE_CLOSED, "had stopped"));
  }

  /**
   * An open that failed on a misspelt setting: every later request is refused from the dead
   * letters, to its own adapter, with the open failure's cause, not only "had stopped".
   */
  @Test
  void anActorWhoseOpenFailedRefusesWithTheCauseToTheirOwnAdapters() {
    ActorRef<Request> database = testKit.spawn(DatabaseActor.create(dir.resolve("misspelt"),
        ConfigFactory.parseString("commitlane.commit-thredas = 2")));
    TestProbe<Object> watcher = testKit.createTestProbe();
    watcher.expectTerminated(database, WAIT);
    assertRoutedInEveryOrder((adapters, base) -> {
      List<Request> all = everyKind(adapters, base);
      all.forEach(database::tell);
      return all;
    }, failedWith(DatabaseProtocol.FailureReason.DATABASE_CLOSED, "commitlane.commit-thredas"));
  }

  /**
   * A database actor still opening (its path's previous database is closing, held by a commit)
   * with room for one waiting request: the others are refused at once as overloaded.
   */
  @Test
  void anOverloadedDatabaseActorsRefusalsReachTheirOwnAdapters() throws Exception {
    Path path = dir.resolve("busy");
    PipelineSettings settings = settings(testKit.system(), Map.of("wal", "off", "commit-queue-capacity", 1));
    CommitlaneDatabase first = Commitlane.get(testKit.system()).open(path, settings);
    List<ActorRef<Request>> opening = new ArrayList<>();
    List<TestProbe<ReadReply>> waiting = new ArrayList<>();
    try (StageControl stages = StageControl.install(first.storage())) {
      Barrier hold = stages.barrier(CommitStage.DEQUEUED, c -> true);
      io.commitlane.storage.Transaction txn = first.begin();
      txn.put(b("held"), b("v"));
      CompletionStage<?> held = first.commit(txn);
      hold.awaitArrivals(1, WAIT);
      // Closing the database now waits for the held commit; an open of the path meanwhile waits for the close.
      Commitlane.get(testKit.system()).closeAll();
      assertRoutedInEveryOrder((adapters, base) -> {
        ActorRef<Request> database = testKit.spawn(DatabaseActor.create(path, settings));
        opening.add(database);
        TestProbe<ReadReply> served = testKit.createTestProbe();
        waiting.add(served);
        database.tell(new Get(Key.of(b("first")), -base, served.ref())); // takes the one place
        List<Request> all = everyKind(adapters, base);
        all.forEach(database::tell);
        return all;
      }, failedWith(DatabaseProtocol.FailureReason.OVERLOADED, "opening"));
      hold.release();
      held.toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
    for (TestProbe<ReadReply> w : waiting) {
      w.expectMessageClass(DatabaseProtocol.Values.class, WAIT); // served once the database opened again
    }
    opening.forEach(testKit::stop);
    Commitlane.get(testKit.system()).whenReleased(path).toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
  }
}
