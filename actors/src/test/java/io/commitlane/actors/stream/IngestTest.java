package io.commitlane.actors.stream;

import static io.commitlane.actors.stream.StreamTestSupport.await;
import static io.commitlane.actors.stream.StreamTestSupport.b;
import static io.commitlane.actors.stream.StreamTestSupport.open;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.Hold;
import io.commitlane.actors.stream.internal.IngestTotalsSink;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class IngestTest {
  @JUnit5TestKit static ActorTestKit testKit;
  private static ActorSystem<?> system;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() {
    system = testKit.system();
  }


  private static List<KeyValue> records(int n, int valueSize) {
    Random random = new Random(n);
    List<KeyValue> records = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] value = new byte[valueSize];
      random.nextBytes(value);
      records.add(new KeyValue(key(i), value));
    }
    return records;
  }

  private static byte[] key(int i) {
    return b(String.format("rec%07d", i));
  }

  private static void assertStored(Database db, List<KeyValue> records, long from, long to) {
    for (int i = (int) from; i < to; i++) {
      assertArrayEquals(records.get(i).value(), db.get(records.get(i).key()), "record " + i);
    }
  }

  private static void assertAbsent(Database db, List<KeyValue> records, long from, long to) {
    for (int i = (int) from; i < to; i++) {
      assertNull(db.get(records.get(i).key()), "record " + i + " should not be written");
    }
  }

  @Test
  void totalsMatchWhatIsReadableAfterwards() throws Exception {
    List<KeyValue> records = records(10_000, 100);
    long bytes = records.stream().mapToLong(KeyValue::bytes).sum();
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      IngestTotals totals = await(Source.from(records)
          .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(256).withMaxBytes(8 << 10)), system));
      assertEquals(10_000, totals.records());
      assertEquals(bytes, totals.bytes());
      assertEquals(10_000, totals.committedPrefix());
      assertEquals(0, totals.failedTransactions());
      assertNull(totals.firstFailure());
      assertTrue(totals.transactions() >= (bytes + (8 << 10) - 1) / (8 << 10), totals.toString());
      assertStored(db.storage(), records, 0, records.size());
    }
  }

  @Test
  void aRangeOfOneDatabaseIngestsIntoAnotherAndAKeysOnlyEntryIsRefusedByName() throws Exception {
    List<KeyValue> records = records(500, 50);
    try (CommitlaneDatabase source = open(system, dir.resolve("source"), Map.of());
        CommitlaneDatabase target = open(system, dir.resolve("target"), Map.of())) {
      await(Source.from(records).runWith(Ingest.sink(source, IngestSettings.defaults()), system));
      IngestTotals copied = await(RangeSource.of(source, KeyRange.all(), 64)
          .runWith(Ingest.sink(target, IngestSettings.defaults().withMaxRecords(100)), system));
      assertEquals(500, copied.records());
      assertStored(target.storage(), records, 0, records.size());

      ExecutionException keysOnly = assertThrows(ExecutionException.class, () -> await(
          RangeSource.of(source, KeyRange.all().keysOnly(), 64).runWith(Ingest.sink(target, IngestSettings.defaults()), system)));
      Throwable cause = keysOnly.getCause() instanceof IngestFailedException f && f.getCause() != null ? f.getCause() : keysOnly.getCause();
      assertInstanceOf(IllegalArgumentException.class, cause);
      assertTrue(cause.getMessage().contains("rec0000000") && cause.getMessage().contains("no value"), cause.getMessage());
    }
  }

  @Test
  void batchesRespectTheRecordAndByteCapsAndCoverTheStreamInOrder() throws Exception {
    List<KeyValue> records = records(5_000, 100);
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      StreamTestSupport.slowDown(db.storage(), CommitStage.VALIDATED, 200); // batches grow while commits are slow
      List<WriteOutcome<IngestBatch<KeyValue>>> outcomes = await(Source.from(records)
          .via(Ingest.flow(db, IngestSettings.defaults().withMaxRecords(50).withMaxBytes(3_000), RecordWriter.keyValues()))
          .runWith(Sink.seq(), system));
      long next = 0;
      int full = 0;
      for (int i = 0; i < outcomes.size(); i++) {
        WriteOutcome<IngestBatch<KeyValue>> o = outcomes.get(i);
        assertTrue(o.isCommitted());
        IngestBatch<KeyValue> batch = o.correlation();
        assertEquals(i, batch.number());
        assertEquals(next, batch.firstRecord(), "batches are contiguous and in order");
        assertTrue(batch.size() <= 50 && batch.bytes() <= 3_000, batch.toString());
        assertEquals(batch.records(), records.subList((int) batch.firstRecord(), (int) batch.endRecord()));
        full += batch.bytes() + 108 > 3_000 ? 1 : 0;
        next = batch.endRecord();
      }
      assertEquals(5_000, next);
      assertTrue(full > outcomes.size() / 2, "most batches filled up while commits were slow: " + full + "/" + outcomes.size());
      assertStored(db.storage(), records, 0, records.size());
    }
  }

  @Test
  void aRecordHeavierThanMaxBytesGoesAlone() throws Exception {
    List<KeyValue> records = List.of(new KeyValue(key(0), new byte[10]), new KeyValue(key(1), new byte[5_000]),
        new KeyValue(key(2), new byte[10]));
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      List<WriteOutcome<IngestBatch<KeyValue>>> outcomes = await(Source.from(records)
          .via(Ingest.flow(db, IngestSettings.defaults().withMaxBytes(1_000).withLinger(Duration.ofHours(1)), RecordWriter.keyValues()))
          .runWith(Sink.seq(), system));
      assertEquals(List.of(1, 1, 1), outcomes.stream().map(o -> o.correlation().size()).toList());
      assertStored(db.storage(), records, 0, 3);
    }
  }

  @Test
  void eachRecordIsCommittedAtOnceWhileTheDatabaseKeepsUp() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      TestProbe<IngestBatch<KeyValue>> probe = testKit.createTestProbe();
      Pair<BoundedSourceQueue<KeyValue>, CompletionStage<IngestTotals>> run = Source.<KeyValue>queue(16)
          .via(Ingest.flow(db, IngestSettings.defaults(), RecordWriter.keyValues()))
          .wireTap(o -> probe.ref().tell(o.correlation()))
          .toMat(Sink.fromGraph(new IngestTotalsSink<KeyValue>()), Keep.both())
          .run(system);
      for (int i = 0; i < 3; i++) {
        run.first().offer(new KeyValue(key(i), b("v" + i)));
        // No linger and an idle committer: the record is committed with the stream still open.
        IngestBatch<KeyValue> batch = probe.receiveMessage(Duration.ofSeconds(30));
        assertEquals(i, batch.number());
        assertEquals(1, batch.size());
      }
      run.first().complete();
      assertEquals(3, await(run.second()).transactions());
    }
  }

  @Test
  void recordsAccumulateIntoOneBatchWhileACommitIsInFlight() throws Exception {
    List<KeyValue> records = records(50, 10);
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      CountDownLatch allPulled = new CountDownLatch(records.size());
      try (Hold hold = new Hold(db.storage(), CommitStage.VALIDATED,
          c -> c.tag() instanceof IngestBatch<?> batch && batch.number() == 0)) {
        CompletionStage<List<WriteOutcome<IngestBatch<KeyValue>>>> result = Source.from(records)
            .map(r -> {
              allPulled.countDown();
              return r;
            })
            .via(Ingest.flow(db, IngestSettings.defaults().withMaxRecords(100), RecordWriter.keyValues()))
            .runWith(Sink.seq(), system);
        hold.awaitArrivals(1);
        assertTrue(allPulled.await(30, TimeUnit.SECONDS), "the batcher keeps pulling while batch 0 commits");
        hold.release();
        List<WriteOutcome<IngestBatch<KeyValue>>> outcomes = await(result);
        assertEquals(2, outcomes.size(), "everything after batch 0 went into one transaction");
        assertEquals(50, outcomes.get(0).correlation().size() + outcomes.get(1).correlation().size());
      }
      assertStored(db.storage(), records, 0, 50);
    }
  }

  @Test
  void withALingerAPartialBatchWaitsForItsWindowThenCommitsWithTheStreamOpen() throws Exception {
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 1))) {
      TestProbe<IngestBatch<KeyValue>> probe = testKit.createTestProbe();
      BoundedSourceQueue<KeyValue> queue = Source.<KeyValue>queue(16)
          .via(Ingest.flow(db, IngestSettings.defaults().withLinger(Duration.ofSeconds(2)), RecordWriter.keyValues()))
          .toMat(Sink.foreach(o -> probe.ref().tell(o.correlation())), Keep.left())
          .run(system);
      long start = System.nanoTime();
      queue.offer(new KeyValue(key(0), b("a")));
      queue.offer(new KeyValue(key(1), b("b")));
      IngestBatch<KeyValue> batch = probe.receiveMessage(Duration.ofSeconds(30));
      assertTrue(System.nanoTime() - start >= Duration.ofSeconds(2).toNanos(), "the batch waited for its window");
      assertEquals(2, batch.size());
      queue.complete();
      assertNotNull(db.storage().get(key(1)));
    }
  }

  @Test
  void anInjectedFailureStopsTheSinkAndReportsWhichBatchesCommitted() throws Exception {
    List<KeyValue> records = records(3_000, 20);
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      AtomicReference<IngestBatch<?>> injected = new AtomicReference<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.VALIDATED && c.tag() instanceof IngestBatch<?> batch && batch.number() == 3) {
          injected.set(batch);
          throw new IllegalStateException("injected failure in batch 3");
        }
      });
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(Source.from(records)
          .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(100)), system)));
      IngestFailedException failed = assertInstanceOf(IngestFailedException.class, e.getCause());
      IngestBatch<?> batch = failed.failedBatch();
      assertSame(injected.get(), batch);
      assertEquals(3, batch.number());
      assertEquals("injected failure in batch 3", failed.getCause().getMessage());
      IngestTotals totals = failed.totals();
      assertEquals(3, totals.transactions(), "batches 0..2 committed");
      assertEquals(batch.firstRecord(), totals.records());
      assertEquals(batch.firstRecord(), totals.committedPrefix());
      assertEquals(1, totals.failedTransactions());
      assertEquals(batch.size(), totals.failedRecords());
      assertStored(db.storage(), records, 0, totals.committedPrefix());
      assertAbsent(db.storage(), records, totals.committedPrefix(), records.size());
    }
  }

  @Test
  void inEmitModeAFailedBatchIsCountedAndTheRestCommits() throws Exception {
    List<KeyValue> records = records(3_000, 20);
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2))) {
      AtomicReference<IngestBatch<?>> injected = new AtomicReference<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.VALIDATED && c.tag() instanceof IngestBatch<?> batch && batch.number() == 3) {
          injected.set(batch);
          throw new IllegalStateException("injected failure in batch 3");
        }
      });
      IngestTotals totals = await(Source.from(records)
          .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(100).withFailureMode(FailureMode.EMIT)), system));
      IngestBatch<?> batch = injected.get();
      assertEquals(1, totals.failedTransactions());
      assertEquals(batch.size(), totals.failedRecords());
      assertEquals(records.size() - batch.size(), totals.records());
      assertEquals(batch.firstRecord(), totals.committedPrefix());
      assertEquals("injected failure in batch 3", totals.firstFailure().getMessage());
      assertStored(db.storage(), records, 0, batch.firstRecord());
      assertAbsent(db.storage(), records, batch.firstRecord(), batch.endRecord());
      assertStored(db.storage(), records, batch.endRecord(), records.size());
    }
  }

  @ParameterizedTest(name = "occ-blind-writes={0}")
  @ValueSource(strings = {"conflict", "ordered"})
  void bigBatchesInParallelNeverConflictUnderEitherBlindWriteSetting(String blindWrites) throws Exception {
    // Batches read nothing: under either setting they never conflict, also when they rewrite each
    // other's keys and share every one of 16 lock buckets.
    List<KeyValue> records = new ArrayList<>(records(20_000, 20));
    records.addAll(records(20_000, 21)); // the same keys again, new values: the later write of each key must win
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2, "occ-blind-writes", blindWrites, "occ-lock-buckets", 16))) {
      List<WriteOutcome<IngestBatch<KeyValue>>> outcomes = await(Source.from(records)
          .via(Ingest.flow(db, IngestSettings.defaults().withMaxRecords(1_000).withParallelism(4)
              .withConflictRetry(ConflictRetry.none()), RecordWriter.keyValues()))
          .runWith(Sink.seq(), system));
      assertTrue(outcomes.stream().allMatch(o -> o.isCommitted() && o.attempts() == 1), "no batch conflicted");
      assertEquals(40_000, outcomes.stream().mapToInt(o -> o.correlation().size()).sum());
      assertEquals(0, db.stats().conflicts());
      assertStored(db.storage(), records, 20_000, records.size());
    }
  }

  @ParameterizedTest(name = "parallelism={0}")
  @ValueSource(ints = {1, 4})
  void parallelBatchesWithConflictingWritersStillLoseNothing(int parallelism) throws Exception {
    List<KeyValue> records = records(4_000, 50);
    try (CommitlaneDatabase db = open(system, dir, Map.of("commit-threads", 2, "occ-lock-buckets", 1024))) {
      IngestSettings settings = IngestSettings.defaults().withMaxRecords(16).withParallelism(parallelism)
          .withConflictRetry(ConflictRetry.attempts(1_000, Backoff.of(Duration.ZERO, Duration.ofMillis(1))));
      IngestTotals totals = await(Source.from(records).runWith(Ingest.sink(db, settings), system));
      assertEquals(4_000, totals.records());
      assertEquals(4_000, totals.committedPrefix());
      assertStored(db.storage(), records, 0, records.size());
    }
  }
}
