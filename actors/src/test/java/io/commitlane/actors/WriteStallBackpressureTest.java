package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.actors.internal.pipeline.Pipeline;
import io.commitlane.actors.internal.pipeline.WriteLane;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.actors.stream.RecordWriter;
import io.commitlane.actors.stream.WriteOutcome;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.RocksDbStats;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.WriteStall;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A RocksDB write stall is backpressure: forced with the testkit's {@link WriteStall} (flushes
 * paused, 64 KiB memtables), writes stop, the commit executors wait inside RocksDB, the queue
 * fills, and from then on commits are refused (Java API and protocol) while streams wait in the
 * admission line. Stats say so while it lasts. When it ends every admitted commit completes, and
 * a reopen finds them all, with the WAL on and off, in threads and two-lane mode (where the full
 * write lane holds the log lane, and then the admission queue fills).
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class WriteStallBackpressureTest {
  @JUnit5TestKit static ActorTestKit testKit;

  private static final int THREADS = 2;
  private static final int CAPACITY = 8;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private CommitlaneDatabase open(boolean wal, Map<String, Object> more) {
    return open("threads", wal, more);
  }

  private CommitlaneDatabase open(String mode, boolean wal, Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>();
    m.put("mode", mode);
    m.put("commit-threads", THREADS);
    m.put("commit-queue-capacity", CAPACITY);
    m.put("wal", wal ? "on" : "off");
    m.put("rocksdb.write-buffer-size", "64 KiB");
    m.put("rocksdb.max-write-buffers", 2);
    m.putAll(more);
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  private static byte[] key(String prefix, int i) {
    return (prefix + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i, int bytes) {
    byte[] v = new byte[bytes];
    Arrays.fill(v, (byte) i);
    return v;
  }

  private static CompletableFuture<CommitResult> put(CommitlaneDatabase db, int i) {
    Transaction t = db.begin();
    t.put(key("k", i), value(i, 4096));
    return db.commit(t).toCompletableFuture();
  }

  private static Throwable cause(CompletableFuture<?> f) {
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  private static String executorThreads(CommitlaneDatabase db) {
    return "commitlane-commit-" + db.pipeline().name() + "-";
  }

  private static long held(CommitlaneDatabase db) {
    String prefix = executorThreads(db);
    return WriteStall.blockedWriters().stream().filter(n -> n.startsWith(prefix)).count();
  }

  /** The log lane waits for room in the write lane: it takes nothing more from the admission queue until it gets some. */
  private static boolean logLaneWaits(CommitlaneDatabase db) {
    String name = "commitlane-log-lane-" + db.pipeline().name();
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      if (e.getKey().getName().equals(name)) {
        return Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals(WriteLane.class.getName())
            && f.getMethodName().equals("handOff"));
      }
    }
    return false;
  }

  /**
   * RocksDB stops writes and every executor is inside a RocksDB write: nothing leaves the queue
   * until the stall ends. In threads mode both executors run (admissions start the second one). In
   * two-lane mode the write lane is full and each of its executors is inside a write (with the WAL
   * off one may be all it started), and the log lane waits for room in it.
   */
  private static boolean settled(CommitlaneDatabase db, WriteStall stall) {
    if (!stall.writesStopped() || !executorsHeld(db)) {
      return false;
    }
    // Seen again a millisecond later: a thread still inside a write then entered it after writes stopped.
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    return executorsHeld(db);
  }

  private static boolean executorsHeld(CommitlaneDatabase db) {
    Pipeline p = db.pipeline();
    if (p.writes() == null) {
      return held(db) == THREADS;
    }
    int writers = p.writes().queue.executorsSpawned();
    return writers >= 1 && held(db) == writers && p.writes().queue.depth() == CAPACITY && logLaneWaits(db);
  }

  /**
   * Commits key after key (asynchronously) until the stall has settled and the queue refuses one:
   * from then on the queue stays full. Returns the admitted commits by key; refused keys were not
   * written.
   */
  private static Map<Integer, CompletableFuture<CommitResult>> fill(CommitlaneDatabase db, WriteStall stall) {
    Map<Integer, CompletableFuture<CommitResult>> admitted = new LinkedHashMap<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (int i = 0; ; i++) {
      if (System.nanoTime() > deadline) {
        fail("the stall did not settle: " + stall.stats() + ", writers inside RocksDB " + WriteStall.blockedWriters());
      }
      boolean settled = settled(db, stall);
      CompletableFuture<CommitResult> c = put(db, i);
      if (!c.isCompletedExceptionally()) {
        admitted.put(i, c);
      } else if (!(cause(c) instanceof CommitQueueFullException)) {
        fail("refused for another reason than a full queue", cause(c));
      } else if (settled) {
        return admitted;
      } else {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // an executor is on its way into RocksDB
      }
    }
  }

  private static DatabaseStats protocolStats(CommitlaneDatabase db) {
    TestProbe<DatabaseProtocol.StatsReply> probe = testKit.createTestProbe();
    db.ref().tell(new DatabaseProtocol.GetStats(1, probe.ref()));
    return probe.expectMessageClass(DatabaseStats.class, WAIT);
  }

  private static void assertAllCommitted(Map<Integer, CompletableFuture<CommitResult>> admitted) throws Exception {
    for (CompletableFuture<CommitResult> c : admitted.values()) {
      c.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** Reopened with storage alone: every admitted commit is there, no refused one. */
  private void assertReopenHolds(boolean wal, Map<Integer, CompletableFuture<CommitResult>> admitted, int upTo) {
    assertFalse(Database.isOpen(dir));
    try (Database again = Database.open(dir, DatabaseOptions.defaults().withWal(wal))) {
      for (int i = 0; i < upTo; i++) {
        byte[] v = again.get(key("k", i));
        if (admitted.containsKey(i)) {
          assertArrayEquals(value(i, 4096), v, "admitted commit " + i);
        } else {
          assertNull(v, "refused commit " + i);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}, wal {1}")
  @CsvSource({"threads, true", "threads, false", "two-lane, true", "two-lane, false"})
  void aStopFillsTheQueueThenRefusesCommitsUntilItEndsAndLosesNothing(String mode, boolean wal) throws Exception {
    CommitlaneDatabase db = open(mode, wal, Map.of());
    Map<Integer, CompletableFuture<CommitResult>> admitted;
    int next;
    try (WriteStall stall = WriteStall.force(db.storage())) {
      admitted = fill(db, stall);
      next = admitted.size() + 1000;

      PipelineStats during = db.stats();
      assertEquals(CAPACITY, during.queueDepth(), "the queue is full and stays full");
      boolean twoLanes = db.settings().mode() == PipelineMode.TWO_LANE;
      assertEquals(twoLanes ? CAPACITY : 0, during.writeLaneDepth(), "two-lane: the write lane is full too");
      assertTrue(during.rocksDb().writeStopped(), during.rocksDb()::toString);
      assertTrue(during.overloaded() >= 1);
      long waiting = admitted.values().stream().filter(c -> !c.isDone()).count();
      assertEquals(during.inFlight(), waiting, "the admitted commits not completed are the ones in flight");
      assertTrue(waiting >= during.queueDepth() + during.writeLaneDepth() + held(db),
          "queued, plus at least one per held executor: " + waiting);

      // The Java API refuses at once, typed and retryable: nothing is admitted beyond the bound.
      Throwable refused = cause(put(db, next));
      assertInstanceOf(CommitQueueFullException.class, refused);
      assertTrue(((CommitQueueFullException) refused).isRetryable());

      // The protocol answers (its actor is not held) and refuses the write as overload.
      TestProbe<DatabaseProtocol.WriteReply> replies = testKit.createTestProbe();
      db.ref().tell(new DatabaseProtocol.Write(List.of(Mutation.put(key("k", next + 1), value(1, 4096))), null, 7, replies.ref()));
      FailedReply overloaded = expectFailed(replies, WAIT);
      assertEquals(FailureReason.OVERLOADED, overloaded.reason());
      assertTrue(overloaded.retryable());
      assertEquals(7, overloaded.correlation());
      DatabaseStats stats = protocolStats(db);
      assertTrue(stats.writeStopped(), stats::toString);
      assertEquals(CAPACITY, stats.queueDepth());
      assertTrue(stats.overloaded() >= 3, stats::toString);

      // The threads RocksDB holds are the database's executors, never the default dispatcher's.
      List<String> heldThreads = WriteStall.blockedWriters();
      assertTrue(heldThreads.stream().allMatch(n -> n.startsWith(executorThreads(db))), heldThreads.toString());
      CompletableFuture<String> task = CompletableFuture.supplyAsync(() -> "ran",
          testKit.system().dispatchers().lookup(DispatcherSelector.defaultDispatcher()));
      assertEquals("ran", task.get(WAIT.toSeconds(), TimeUnit.SECONDS));
      assertEquals(waiting, admitted.values().stream().filter(c -> !c.isDone()).count(), "nothing moved meanwhile");
    }
    // The stall ended: every admitted commit completes.
    assertAllCommitted(admitted);
    RocksDbStats after = db.stats().rocksDb();
    assertTrue(after.stallMicros() > 0, "the stopped writes' wait is counted once they went on: " + after);
    TestProbe<DatabaseProtocol.WriteReply> replies = testKit.createTestProbe();
    db.ref().tell(new DatabaseProtocol.Write(List.of(Mutation.put(key("k", next + 2), value(2, 4096))), null, 8, replies.ref()));
    replies.expectMessageClass(DatabaseProtocol.Committed.class, WAIT);
    db.close();
    assertReopenHolds(wal, admitted, next);
  }

  @Test
  void aSlowdownAndThenAStopShowInEveryStatsViewWhileTheyLast() throws Exception {
    // One executor, commits one at a time, 80 KiB each (more than a memtable): each fills one memtable.
    // With 4 memtables RocksDB slows writes while 3 wait for their flush and stops them with 4.
    CommitlaneDatabase db = open(true, Map.of("commit-threads", 1, "rocksdb.max-write-buffers", 4));
    try (WriteStall stall = WriteStall.force(db.storage())) {
      int i = 0;
      while (!stall.writesDelayed()) {
        assertTrue(i < 4, () -> "RocksDB should slow writes by the fourth: " + stall.stats());
        await(db.commit(db.begin().put(key("big", i), value(i, 80 * 1024))));
        i++;
      }
      RocksDbStats slowed = db.stats().rocksDb();
      assertTrue(slowed.delayedWriteRate() > 0 && slowed.stallMicros() > 0 && !slowed.writeStopped(), slowed::toString);
      DatabaseStats protocol = protocolStats(db);
      assertTrue(protocol.delayedWriteRate() > 0 && protocol.stallMicros() > 0 && !protocol.writeStopped(), protocol::toString);

      CompletionStage<CommitResult> stopped = db.commit(db.begin().put(key("big", i), value(i, 80 * 1024)));
      stall.awaitWritesStopped(WAIT);
      RocksDbStats stop = db.stats().rocksDb();
      assertTrue(stop.writeStopped() && stop.delayedWriteRate() == 0, stop::toString);
      assertTrue(protocolStats(db).writeStopped());
      assertFalse(stopped.toCompletableFuture().isDone());
      stall.close();
      await(stopped);
    }
    db.close();
  }

  @Test
  void streamsWaitInTheLineThroughAStopAndFinishWhenItEnds() throws Exception {
    CommitlaneDatabase db = open(false, Map.of());
    Map<Integer, CompletableFuture<CommitResult>> admitted;
    CompletionStage<List<WriteOutcome<Integer>>> flow;
    CompletionStage<IngestTotals> ingest;
    try (WriteStall stall = WriteStall.force(db.storage())) {
      admitted = fill(db, stall);
      flow = Source.range(0, 49)
          .map(i -> WriteRequest.builder(i).put(key("flow", i), value(i, 100)).build())
          .via(CommitFlow.<Integer>ordered(db, CommitFlowSettings.defaults().withParallelism(4)))
          .runWith(Sink.seq(), testKit.system());
      ingest = Source.range(0, 199)
          .map(i -> new KeyValue(key("ingest", i), value(i, 100)))
          .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(10), RecordWriter.keyValues()), testKit.system());
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (db.pipeline().queue().waiting() < 2) { // each stage waits with one ticket
        assertTrue(System.nanoTime() < deadline, "both stages should wait in the line");
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
      assertFalse(flow.toCompletableFuture().isDone(), "the flow waits: no error, no overload");
      assertFalse(ingest.toCompletableFuture().isDone(), "the ingest waits: no error, no overload");
      assertEquals(CAPACITY, db.stats().queueDepth());
    }
    List<WriteOutcome<Integer>> outcomes = await(flow);
    assertEquals(50, outcomes.size());
    for (WriteOutcome<Integer> o : outcomes) {
      assertInstanceOf(WriteOutcome.Committed.class, o, o::toString);
    }
    IngestTotals totals = await(ingest);
    assertEquals(200, totals.records());
    assertEquals(0, totals.failedRecords());
    assertAllCommitted(admitted);
    db.close();
    try (Database again = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      for (int i = 0; i < 50; i++) {
        assertArrayEquals(value(i, 100), again.get(key("flow", i)));
      }
      for (int i = 0; i < 200; i++) {
        assertArrayEquals(value(i, 100), again.get(key("ingest", i)));
      }
    }
  }

  @ParameterizedTest(name = "{0}, wal {1}")
  @CsvSource({"threads, true", "threads, false", "two-lane, true", "two-lane, false"})
  void closeDuringAStopRefusesNewCommitsWaitsForTheStallThenLosesNothing(String mode, boolean wal) throws Exception {
    CommitlaneDatabase db = open(mode, wal, Map.of());
    WriteStall stall = WriteStall.force(db.storage());
    Map<Integer, CompletableFuture<CommitResult>> admitted = fill(db, stall);
    int next = admitted.size() + 1000;
    CompletionStage<org.apache.pekko.Done> closed = db.closeAsync();
    assertInstanceOf(DatabaseClosedException.class, cause(put(db, next)), "refused from the moment close is called");
    assertFalse(closed.toCompletableFuture().isDone(), "close drains the admitted commits, which wait for the stall");
    assertTrue(stall.writesStopped());
    stall.close();
    await(closed);
    assertAllCommitted(admitted);
    assertReopenHolds(wal, admitted, next + 1);
  }

  @Test
  void creatingAStoreDuringAStopHoldsNeitherTheCallerNorTheDatabaseActor() throws Exception {
    CommitlaneDatabase db = open(true, Map.of());
    CompletionStage<Store> created;
    TestProbe<DatabaseProtocol.StoreReply> storeReplies = testKit.createTestProbe();
    try (WriteStall stall = WriteStall.force(db.storage())) {
      fill(db, stall);
      // RocksDB creates a column family in its write queue, behind the stopped write. The call returns at once.
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        created = caller.submit(() -> db.createStore("made-during-the-stall")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        caller.shutdownNow();
      }
      db.ref().tell(new DatabaseProtocol.CreateStore("also-made-during-the-stall", 3, storeReplies.ref()));
      DatabaseStats stats = protocolStats(db); // answered after the CreateStore: the actor was not held by it
      assertTrue(stats.writeStopped(), stats::toString);
      assertFalse(created.toCompletableFuture().isDone(), "the creation waits for the stall, off the caller's thread");
    }
    assertEquals("made-during-the-stall", await(created).name());
    assertEquals(3, storeReplies.expectMessageClass(DatabaseProtocol.StoreCreated.class, WAIT).correlation());
    db.close();
  }

  /** Reads go on through a stall: they need no write. */
  @Test
  void readsAreServedDuringAStop() throws Exception {
    CommitlaneDatabase db = open(true, Map.of());
    await(put(db, -1));
    try (WriteStall stall = WriteStall.force(db.storage())) {
      fill(db, stall);
      assertArrayEquals(value(-1, 4096), db.storage().get(key("k", -1)));
      TestProbe<DatabaseProtocol.ReadReply> probe = testKit.createTestProbe();
      db.ref().tell(new DatabaseProtocol.Get(Key.of(key("k", -1)), 4, probe.ref()));
      DatabaseProtocol.Values v = probe.expectMessageClass(DatabaseProtocol.Values.class, WAIT);
      assertArrayEquals(value(-1, 4096), v.values().get(0));
    }
    db.close();
  }
}
