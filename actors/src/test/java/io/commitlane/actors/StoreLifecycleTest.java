package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.log.TransactionLogs;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.InvalidStoreNameException;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.UnknownStoreException;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import io.commitlane.txlog.InspectionReport;
import io.commitlane.txlog.LogInspector;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Creating and dropping stores through the facade and the supervisor's messages. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class StoreLifecycleTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>(more);
    m.putIfAbsent("commit-threads", 2);
    m.put("wal", "off");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  private static Throwable failure(CompletionStage<?> stage) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(stage));
    return e.getCause();
  }

  @Test
  void theFacadeCreatesAndDropsStoresAndCompletesOnTheCompletionDispatcher() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      Store s = await(db.createStore("s"));
      Transaction t = db.begin();
      t.put(s, b("k"), b("v"));
      await(db.commit(t));
      Transaction late = db.begin();
      late.put(s, b("late"), b("x")); // buffered before the drop, committed after: refused at admission

      AtomicReference<String> thread = new AtomicReference<>();
      assertEquals(Done.getInstance(), await(db.dropStore("s").thenApply(d -> {
        thread.set(Thread.currentThread().getName());
        return d;
      })));
      assertFalse(thread.get().startsWith("commitlane-store-drop") || thread.get().contains("ForkJoinPool.commonPool"),
          "dependent stages run on the completion dispatcher, not on " + thread.get());
      StoreDroppedException refused = assertInstanceOf(StoreDroppedException.class, failure(db.commit(late)));
      assertEquals("s", refused.store());
      assertThrows(StoreDroppedException.class, () -> db.storage().get(s, b("k")));
      assertFalse(db.storage().storeNames().contains("s"));
      PipelineStats stats = db.stats();
      assertEquals(1, stats.admitted(), "the refused commit never took a place in the queue");
      assertEquals(0, stats.failed());

      Store again = await(db.createStore("s"));
      assertNotEquals(s.generation(), again.generation());
      assertNull(db.storage().get(again, b("k")), "the new generation starts empty");

      assertInstanceOf(InvalidStoreNameException.class, failure(db.dropStore(Store.DEFAULT)));
      assertInstanceOf(UnknownStoreException.class, failure(db.dropStore("nope")));
      assertInstanceOf(InvalidStoreNameException.class, failure(db.createStore("")));
      assertInstanceOf(InvalidStoreNameException.class, failure(db.createStore("tab\there")));
    }
  }

  @Test
  void theDatabaseActorAnswersCreateStoreAndDropStoreWithTypedReplies() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      TestProbe<DatabaseProtocol.StoreReply> probe = testKit.createTestProbe();
      db.ref().tell(new DatabaseProtocol.CreateStore("s", 1, probe.ref()));
      DatabaseProtocol.StoreCreated created = probe.expectMessageClass(DatabaseProtocol.StoreCreated.class);
      assertEquals("s", created.name());
      assertEquals(1, created.correlation());
      Store s = db.storage().store("s");
      assertEquals(s.generation(), created.generation());

      db.ref().tell(new DatabaseProtocol.CreateStore("s", 1, probe.ref()));
      assertEquals(created, probe.expectMessageClass(DatabaseProtocol.StoreCreated.class), "creating a live store confirms it");

      db.ref().tell(new DatabaseProtocol.DropStore("s", 2, probe.ref()));
      assertEquals(new DatabaseProtocol.StoreDropped(2, "s"), probe.expectMessageClass(DatabaseProtocol.StoreDropped.class));

      db.ref().tell(new DatabaseProtocol.DropStore("s", 3, probe.ref()));
      FailedReply unknown = expectFailed(probe);
      assertEquals(DatabaseProtocol.FailureReason.UNKNOWN_STORE, unknown.reason());
      assertEquals(3, unknown.correlation());
      db.ref().tell(new DatabaseProtocol.DropStore(Store.DEFAULT, 4, probe.ref()));
      assertEquals(DatabaseProtocol.FailureReason.INVALID_REQUEST, expectFailed(probe).reason());
      assertThrows(InvalidRequestException.class, () -> new DatabaseProtocol.CreateStore("", 5, probe.ref()));

      Transaction t = db.begin();
      t.put(db.storage().store("u"), b("k"), b("v"));
      db.storage().dropStore("u");
      TestProbe<DatabaseProtocol.WriteReply> commits = testKit.createTestProbe();
      db.commit(t, 6, commits.ref());
      FailedReply dropped = expectFailed(commits);
      assertEquals(DatabaseProtocol.FailureReason.STORE_DROPPED, dropped.reason());
      assertEquals(6, dropped.correlation());
    }
  }

  /**
   * Claims taken at admission go back even for commits that never run: here one refused by a full
   * queue. If its claim leaked, the drop would never finish.
   */
  @Test
  void aCommitRefusedByAFullQueueGivesItsClaimBack() throws Exception {
    try (CommitlaneDatabase db = open(Map.of("commit-threads", 1, "commit-queue-capacity", 1))) {
      Store s = await(db.createStore("s"));
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier hold = stages.barrier(CommitStage.DEQUEUED, c -> "A".equals(c.tag()));
        CompletionStage<CommitResult> a = put(db, "A", s, "a");
        hold.awaitArrivals(1, Duration.ofSeconds(30)); // the only executor holds A; the queue is empty again
        CompletionStage<CommitResult> queued = put(db, "B", s, "b");
        assertInstanceOf(CommitQueueFullException.class, failure(put(db, "C", s, "c")));
        CompletionStage<Done> drop = db.dropStore("s");
        assertFalse(drop.toCompletableFuture().isDone(), "A and B hold their claims");
        assertEquals(List.of("s"), db.storage().droppingStores());
        hold.release();
        await(a);
        await(queued);
        await(drop);
      }
      assertEquals(List.of(), db.storage().droppingStores());
    }
  }

  /** Records that name a dropped store stay readable; the inspector finds the log clean. */
  @Test
  void logRecordsNamingADroppedStoreStayReadable() throws Exception {
    try (CommitlaneDatabase db = open(Map.of())) {
      Store s = await(db.createStore("s"));
      for (int i = 0; i < 3; i++) {
        Transaction t = db.begin().useLog("changes");
        t.put(s, b("k" + i), b("v" + i));
        t.addLogEntry(b("entry " + i));
        await(db.commit(t));
      }
      await(db.dropStore("s"));
      List<String> entries = new ArrayList<>();
      try (LogReader reader = db.transactionLog("changes").reader(ReadRequest.fromStart())) {
        for (LogRecord r; (r = reader.next()) != null; ) {
          entries.add(StandardCharsets.UTF_8.decode(r.entries().get(0).duplicate()).toString());
          assertTrue(r.writes() != null && r.writes().remaining() > 0, "the writes stay in the record");
        }
      }
      assertEquals(List.of("entry 0", "entry 1", "entry 2"), entries);
    }
    InspectionReport report = LogInspector.inspect(dir.resolve(TransactionLogs.DIRECTORY).resolve("changes"));
    assertTrue(report.clean(), String.valueOf(report));
    assertEquals(3, report.records());
  }

  private static CompletionStage<CommitResult> put(CommitlaneDatabase db, String tag, Store store, String key) {
    Transaction t = db.begin().tag(tag);
    t.put(store, b(key), b(tag));
    return db.commit(t);
  }
}
