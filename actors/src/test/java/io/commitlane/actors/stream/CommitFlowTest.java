package io.commitlane.actors.stream;

import static io.commitlane.actors.stream.StreamTestSupport.await;
import static io.commitlane.actors.stream.StreamTestSupport.b;
import static io.commitlane.actors.stream.StreamTestSupport.eventually;
import static io.commitlane.actors.stream.StreamTestSupport.open;
import static io.commitlane.actors.stream.StreamTestSupport.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.Hold;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.InvalidSettingsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class CommitFlowTest {
  @JUnit5TestKit static ActorTestKit testKit;
  private static ActorSystem<?> system;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() {
    system = testKit.system();
  }


  private static WriteRequest<Integer> put(int i) {
    return WriteRequest.builder(i).put(b("k" + i), b("v" + i)).tag("r" + i).build();
  }

  private static Flow<WriteRequest<Integer>, WriteOutcome<Integer>, NotUsed> flow(CommitlaneDatabase db, boolean ordered,
      CommitFlowSettings settings) {
    return ordered ? CommitFlow.ordered(db, settings) : CommitFlow.unordered(db, settings);
  }

  /**
   * Counts requests the flow took and outcomes it emitted, from stages fused with it (so exactly):
   * taken - emitted is what the flow holds.
   */
  private static final class Held {
    final AtomicInteger taken = new AtomicInteger();
    final AtomicInteger emitted = new AtomicInteger();
    final AtomicInteger max = new AtomicInteger();

    <T> T take(T request) {
      max.accumulateAndGet(taken.incrementAndGet() - emitted.get(), Math::max);
      return request;
    }

    <T> T emit(T outcome) {
      emitted.incrementAndGet();
      return outcome;
    }
  }

  @ParameterizedTest(name = "ordered={0}")
  @ValueSource(booleans = {true, false})
  void aFastSourceIntoASlowDatabaseKeepsInFlightBoundedAndLosesNothing(boolean ordered) throws Exception {
    int n = 2_000;
    int parallelism = 16;
    int capacity = 64;
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2, "commit-queue-capacity", capacity,
        "occ-lock-buckets", 16_777_216))) {
      StreamTestSupport.InFlight inFlight = new StreamTestSupport.InFlight();
      db.storage().addStageListener(inFlight);
      StreamTestSupport.slowDown(db.storage(), CommitStage.VALIDATED, 50);
      Held held = new Held();
      List<WriteOutcome<Integer>> outcomes = await(Source.range(0, n - 1)
          .map(i -> held.take(put(i)))
          .via(flow(db, ordered, CommitFlowSettings.defaults().withParallelism(parallelism)))
          .map(held::emit)
          .runWith(Sink.seq(), system));

      assertEquals(n, outcomes.size());
      assertTrue(outcomes.stream().allMatch(WriteOutcome::isCommitted), "every request committed");
      assertEquals(IntStream.range(0, n).boxed().collect(Collectors.toSet()),
          outcomes.stream().map(WriteOutcome::correlation).collect(Collectors.toSet()), "exactly one outcome per request");
      if (ordered) {
        assertEquals(IntStream.range(0, n).boxed().toList(), outcomes.stream().map(WriteOutcome::correlation).toList());
      }
      assertTrue(held.max.get() <= parallelism, "the flow held " + held.max + " requests, parallelism " + parallelism);
      // The database side: admitted and not completed. A commit's outcome reaches the flow just before
      // the executor reports COMPLETED, so each executor may overlap one commit with its successor.
      assertTrue(inFlight.max.get() <= parallelism + 2, "in flight " + inFlight.max);
      assertTrue(inFlight.max.get() <= parallelism + capacity, "in flight " + inFlight.max);
      for (int i = 0; i < n; i++) {
        assertEquals("v" + i, s(db.storage().get(b("k" + i))));
      }
    }
  }

  @ParameterizedTest(name = "ordered={0}")
  @ValueSource(booleans = {true, false})
  void aFullQueueBackpressuresTheSourceAndNothingFailsWithOverload(boolean ordered) throws Exception {
    int n = 40;
    int parallelism = 8;
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1, "commit-queue-capacity", 2,
        "write-groups.enabled", "off"))) { // merged, r1 and r2 would be held with r0 and free the queue
      StreamTestSupport.InFlight inFlight = new StreamTestSupport.InFlight();
      db.storage().addStageListener(inFlight);
      Held held = new Held();
      try (Hold hold = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()))) {
        CompletionStage<List<WriteOutcome<Integer>>> result = Source.range(0, n - 1)
            .map(i -> held.take(put(i)))
            .via(flow(db, ordered, CommitFlowSettings.defaults().withParallelism(parallelism)))
            .map(held::emit)
            .runWith(Sink.seq(), system);
        hold.awaitArrivals(1); // the only executor is busy with r0
        // r1 and r2 fill the queue (capacity 2); r3 is refused, parked, and waits in the database's line.
        eventually(() -> held.taken.get() == 4 && db.stats().overloaded() >= 1, "the flow took r0..r3 and r3 was refused");
        assertEquals(4, held.taken.get(), "nothing more was pulled while the queue was full");
        assertEquals(0, held.emitted.get());
        hold.release();
        List<WriteOutcome<Integer>> outcomes = await(result);
        assertEquals(n, outcomes.size());
        for (WriteOutcome<Integer> o : outcomes) {
          assertTrue(o.isCommitted(), () -> "not committed: " + o);
          assertEquals(1, o.attempts(), "a refused admission is not an attempt");
        }
        assertEquals(IntStream.range(0, n).boxed().collect(Collectors.toSet()),
            outcomes.stream().map(WriteOutcome::correlation).collect(Collectors.toSet()));
      }
      assertTrue(db.stats().overloaded() > 0, "the full-queue path was exercised");
      assertTrue(held.max.get() <= parallelism);
      assertTrue(inFlight.max.get() <= parallelism + 2, "in flight " + inFlight.max + " > parallelism + queue capacity");
      for (int i = 0; i < n; i++) {
        assertEquals("v" + i, s(db.storage().get(b("k" + i))));
      }
    }
  }

  @Test
  void theOrderedFlowEmitsInRequestOrderWhenCommitsCompleteOutOfOrder() throws Exception {
    // Merging off: a held r0 would hold the members of its group too.
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2, "write-groups.enabled", "off"))) {
      List<Object> written = new CopyOnWriteArrayList<>();
      CountDownLatch othersWritten = new CountDownLatch(3);
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.WRITTEN) {
          written.add(c.tag());
          if (!"r0".equals(c.tag())) {
            othersWritten.countDown();
          }
        }
      });
      try (Hold hold = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()))) {
        CompletionStage<List<WriteOutcome<Integer>>> result = Source.range(0, 9).map(CommitFlowTest::put)
            .via(CommitFlow.ordered(db, CommitFlowSettings.defaults().withParallelism(4)))
            .runWith(Sink.seq(), system);
        hold.awaitArrivals(1);
        assertTrue(othersWritten.await(30, TimeUnit.SECONDS), "r1..r3 commit while r0 is held");
        hold.release();
        List<WriteOutcome<Integer>> outcomes = await(result);
        assertEquals(IntStream.range(0, 10).boxed().toList(), outcomes.stream().map(WriteOutcome::correlation).toList());
        assertTrue(outcomes.stream().allMatch(WriteOutcome::isCommitted));
      }
      assertTrue(written.indexOf("r0") > written.indexOf("r1"), "r0 completed after r1: " + written);
    }
  }

  @Test
  void theUnorderedFlowEmitsOutcomesAsCommitsComplete() throws Exception {
    // Merging off: a held r0 would hold the members of its group too.
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2, "write-groups.enabled", "off"))) {
      TestProbe<Integer> probe = testKit.createTestProbe();
      try (Hold hold = new Hold(db.storage(), CommitStage.VALIDATED, c -> "r0".equals(c.tag()))) {
        CompletionStage<Done> done = Source.range(0, 9).map(CommitFlowTest::put)
            .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(4)))
            .runWith(Sink.foreach(o -> probe.ref().tell(o.isCommitted() ? o.correlation() : -1)), system);
        hold.awaitArrivals(1);
        Set<Integer> whileHeld = new HashSet<>(probe.receiveSeveralMessages(9));
        assertEquals(IntStream.range(1, 10).boxed().collect(Collectors.toSet()), whileHeld, "r1..r9 overtake the held r0");
        hold.release();
        assertEquals(0, probe.receiveMessage());
        await(done);
      }
    }
  }

  @Test
  void aConflictIsRetriedOnAFreshTransaction() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      db.storage().put(b("n"), b("0"));
      AtomicBoolean interfered = new AtomicBoolean();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.DEQUEUED && "inc".equals(c.tag()) && interfered.compareAndSet(false, true)) {
          db.storage().put(b("n"), b("100")); // lands after the first attempt's snapshot
        }
      });
      WriteRequest<String> inc = WriteRequest.<String>of("inc", txn -> {
        int v = Integer.parseInt(s(txn.get(b("n"))));
        txn.put(b("n"), b(Integer.toString(v + 1)));
      }).withTag("inc");
      List<WriteOutcome<String>> outcomes = await(Source.single(inc).via(CommitFlow.ordered(db)).runWith(Sink.seq(), system));
      WriteOutcome.Committed<String> ok = assertInstanceOf(WriteOutcome.Committed.class, outcomes.get(0));
      assertEquals(2, ok.attempts());
      assertEquals("101", s(db.storage().get(b("n"))), "the retry read the interfering write");
    }
  }

  @Test
  void conflictsThatOutlastThePolicySurfaceAsFailedElementsOrAsAStreamFailure() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      db.storage().put(b("n"), b("0"));
      AtomicInteger attempts = new AtomicInteger();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.DEQUEUED && "always".equals(c.tag())) {
          attempts.incrementAndGet();
          db.storage().put(b("n"), b("x"));
        }
      });
      WriteRequest<String> doomed = WriteRequest.<String>of("doomed", txn -> {
        txn.get(b("n"));
        txn.put(b("n"), b("mine"));
      }).withTag("always");
      ConflictRetry three = ConflictRetry.attempts(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2)));

      List<WriteOutcome<String>> emitted = await(Source.single(doomed)
          .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withConflictRetry(three))).runWith(Sink.seq(), system));
      WriteOutcome.Failed<String> failed = assertInstanceOf(WriteOutcome.Failed.class, emitted.get(0));
      assertEquals(3, failed.attempts());
      assertEquals(3, assertInstanceOf(ConflictException.class, failed.cause()).attempts());
      assertEquals(3, attempts.get());

      List<WriteOutcome<String>> seen = new CopyOnWriteArrayList<>();
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(Source.single(doomed)
          .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withConflictRetry(ConflictRetry.none())
              .withFailureMode(FailureMode.FAIL_STREAM)))
          .runWith(Sink.foreach(seen::add), system)));
      WriteFailedException stopped = assertInstanceOf(WriteFailedException.class, e.getCause());
      assertEquals("doomed", stopped.correlation());
      assertEquals(1, assertInstanceOf(ConflictException.class, stopped.getCause()).attempts());
      assertTrue(stopped.isRetryable());
      assertEquals(1, seen.size(), "the failed request's outcome is emitted before the stream fails");
      assertEquals("x", s(db.storage().get(b("n"))));
    }
  }

  @Test
  void failStreamModeStopsPullingAndEmitsEveryOutcomeTakenBeforeFailing() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      List<WriteOutcome<Integer>> seen = new CopyOnWriteArrayList<>();
      Source<WriteRequest<Integer>, NotUsed> requests = Source.range(0, 19)
          .map(i -> i == 5 ? WriteRequest.<Integer>of(i, txn -> {
            throw new IllegalStateException("record 5 is malformed");
          }) : put(i));
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(requests
          .via(CommitFlow.ordered(db, CommitFlowSettings.defaults().withParallelism(4).withFailureMode(FailureMode.FAIL_STREAM)))
          .runWith(Sink.foreach(seen::add), system)));
      WriteFailedException stopped = assertInstanceOf(WriteFailedException.class, e.getCause());
      assertEquals(5, stopped.correlation());
      assertInstanceOf(IllegalStateException.class, stopped.getCause());
      assertEquals(List.of(0, 1, 2, 3, 4, 5), seen.stream().map(WriteOutcome::correlation).toList(), "one outcome per request taken");
      assertTrue(seen.subList(0, 5).stream().allMatch(WriteOutcome::isCommitted));
      assertInstanceOf(WriteOutcome.Failed.class, seen.get(5));
      for (int i = 6; i < 20; i++) {
        assertNull(db.storage().get(b("k" + i)), "nothing after the failure was taken");
      }

      // EMIT: the failure is an element and the stream goes on.
      List<WriteOutcome<Integer>> all = await(requests.via(CommitFlow.ordered(db)).runWith(Sink.seq(), system));
      assertEquals(20, all.size());
      assertEquals(List.of(5), all.stream().filter(o -> !o.isCommitted()).map(WriteOutcome::correlation).toList());
    }
  }

  @Test
  void anUpstreamFailureLetsTakenRequestsFinishFirst() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      List<WriteOutcome<Integer>> seen = new CopyOnWriteArrayList<>();
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(Source.range(0, 10).map(i -> {
            if (i == 10) {
              throw new IllegalStateException("source broke");
            }
            return put(i);
          })
          .via(CommitFlow.unordered(db, CommitFlowSettings.defaults().withParallelism(8)))
          .runWith(Sink.foreach(seen::add), system)));
      assertEquals("source broke", e.getCause().getMessage());
      assertEquals(10, seen.size());
      assertTrue(seen.stream().allMatch(WriteOutcome::isCommitted));
    }
  }

  @Test
  void aClosedDatabaseFailsEachRequestWithATypedError() throws Exception {
    CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1));
    db.close();
    List<WriteOutcome<Integer>> outcomes = await(Source.range(0, 2).map(CommitFlowTest::put)
        .via(CommitFlow.ordered(db)).runWith(Sink.seq(), system));
    assertEquals(3, outcomes.size());
    for (WriteOutcome<Integer> o : outcomes) {
      assertInstanceOf(DatabaseClosedException.class, assertInstanceOf(WriteOutcome.Failed.class, o).cause());
    }
    assertTrue(!Database.isOpen(dir));
  }

  @Test
  void aRequestCarriesLogEntriesStoresAndRemovals() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      db.storage().put(b("old"), b("x"));
      var other = db.storage().store("other");
      WriteRequest<String> r = WriteRequest.builder("mixed")
          .put(b("a"), b("1")).put(other, b("b"), b("2")).remove(b("old"))
          .log("changes").logEntry(b("e1")).logEntry(b("e2")).build();
      assertEquals(1 + 1 + 1 + 1 + 3 + 2 + 2, r.bytes());
      WriteOutcome<String> o = await(Source.single(r).via(CommitFlow.ordered(db)).runWith(Sink.head(), system));
      assertTrue(o.isCommitted());
      assertEquals("1", s(db.storage().get(b("a"))));
      assertEquals("2", s(db.storage().get(other, b("b"))));
      assertNull(db.storage().get(b("old")));
      List<String> entries = new ArrayList<>();
      await(ChangeFeed.current(db, "changes", io.commitlane.txlog.ReadRequest.fromStart())
          .runForeach(rec -> rec.entries().forEach(e -> entries.add(s(e))), system));
      assertEquals(List.of("e1", "e2"), entries);
      assertThrows(IllegalStateException.class, () -> WriteRequest.builder("x").logEntry(b("e")).build());
    }
  }

  @Test
  void settingsAreValidatedAndNameTheBadFields() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> CommitFlowSettings.defaults().withParallelism(0));
    assertEquals(List.of("parallelism"), e.fields());
    InvalidSettingsException i = assertThrows(InvalidSettingsException.class,
        () -> new IngestSettings(0, 0, Duration.ofMillis(-1), 1, ConflictRetry.none(), FailureMode.EMIT));
    assertEquals(List.of("max-records", "max-bytes", "linger"), i.fields());
    assertEquals(List.of("backoff.max"), assertThrows(InvalidSettingsException.class,
        () -> Backoff.of(Duration.ofMillis(5), Duration.ofMillis(1))).fields());
    Backoff backoff = Backoff.of(Duration.ofMillis(1), Duration.ofMillis(10));
    assertEquals(List.of(1L, 2L, 4L, 8L, 10L, 10L),
        IntStream.rangeClosed(1, 6).mapToObj(step -> backoff.delay(step).toMillis()).toList());
    assertEquals(Duration.ofMillis(10), backoff.delay(1_000));
  }
}
