package io.commitlane.actors.projection;

import static io.commitlane.actors.projection.Orders.await;
import static io.commitlane.actors.projection.Orders.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.UnknownLogException;
import io.commitlane.actors.projection.internal.StoredPosition;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The projection runner on a local database: batches in log order that commit with their
 * position, resuming after a stop with no gap and no repeat, the stream, run and actor forms,
 * status, and the typed errors of bad names, settings and stored positions.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ProjectionTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  private Projection<LogRecord, Transaction> counts(CommitlaneDatabase db, int maxBatch) {
    return LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, null))
        .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(maxBatch));
  }

  /** Runs the projection until it committed {@code through}, then stops it; the batches it committed. */
  private List<ProjectionBatch<LogRecord>> runThrough(Projection<LogRecord, Transaction> p, long through) throws Exception {
    Pair<ProjectionControl, java.util.concurrent.CompletionStage<List<ProjectionBatch<LogRecord>>>> run = p.source()
        .takeWhile(batch -> batch.position() != through, true)
        .toMat(Sink.seq(), Keep.both()).run(testKit.system());
    List<ProjectionBatch<LogRecord>> batches = await(run.second());
    assertEquals(Done.getInstance(), await(run.first().whenStopped()), "the runner stops when downstream cancels");
    assertEquals(ProjectionState.STOPPED, run.first().status().state());
    assertEquals(through, run.first().status().position());
    return batches;
  }

  @Test
  void everyRecordIsAppliedOnceInLogOrderAndTheNextRunGoesOnRightAfterTheLast() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 23);
      List<Long> positions = Orders.records(db, testKit.system()).stream().map(LogRecord::position).toList();
      List<ProjectionBatch<LogRecord>> first = runThrough(counts(db, 4), positions.get(22));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
      assertEquals(StoredPosition.NONE, first.get(0).after(), "the first run starts at the oldest record");
      long after = StoredPosition.NONE;
      int records = 0;
      for (ProjectionBatch<LogRecord> batch : first) {
        assertEquals(after, batch.after(), "each batch comes right after the one before");
        assertTrue(batch.records().size() >= 1 && batch.records().size() <= 4, "max-records 4: " + batch);
        for (LogRecord r : batch.records()) {
          assertEquals(positions.get(records++), r.position(), "in log order, none left out");
        }
        assertEquals(batch.records().get(batch.records().size() - 1).position(), batch.position());
        after = batch.position();
      }
      assertEquals(23, records);

      Orders.place(db, 24, 30);
      long last = Orders.lastPosition(db, testKit.system());
      List<ProjectionBatch<LogRecord>> second = runThrough(counts(db, 4), last);
      assertEquals(positions.get(22), second.get(0).after(), "the next run reads its stored position and goes on after it");
      assertEquals(7, second.stream().mapToInt(b -> b.records().size()).sum());
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db), "nothing applied twice, nothing missed");
      assertEquals(30L, Orders.counts(db).values().stream().mapToLong(Long::longValue).sum());
    }
  }

  @Test
  void underFsyncDurabilityABatchIsCommittedOnceItsRecordsAreSynced() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of("txlog.durability", "fsync", "wal", "off"))) {
      db.createTransactionLog(Orders.LOG);
      var run = counts(db, 3).source().toMat(Sink.queue(), Keep.both()).run(testKit.system());
      Orders.place(db, 1, 7);
      long last = Orders.lastPosition(db, testKit.system());
      long position = -1;
      while (position != last) {
        ProjectionBatch<LogRecord> batch = await(run.second().pull()).orElseThrow();
        for (LogRecord r : batch.records()) {
          assertTrue(db.internalTransactionLog(Orders.LOG).whenDurable(r.position()).isDone(), "synced before its batch committed");
        }
        position = batch.position();
      }
      assertEquals(Done.getInstance(), await(run.first().stop()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }

  @Test
  void aBatchWaitsForMaxRecordsUntilMaxWaitPasses() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 12);
      List<Long> positions = Orders.records(db, testKit.system()).stream().map(LogRecord::position).toList();
      Projection<LogRecord, Transaction> full = counts(db, 5)
          .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(5).withMaxBatchWait(Duration.ofHours(1)));
      List<ProjectionBatch<LogRecord>> batches = runThrough(full, positions.get(9));
      assertEquals(List.of(5, 5), batches.stream().map(b -> b.records().size()).toList());
      assertEquals(10L, Orders.counts(db).values().stream().mapToLong(Long::longValue).sum(), "the last 2 waited for more");

      Projection<LogRecord, Transaction> lingering = counts(db, 5)
          .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(5).withMaxBatchWait(Duration.ofMillis(50)));
      List<ProjectionBatch<LogRecord>> rest = runThrough(lingering, positions.get(11));
      assertEquals(List.of(2), rest.stream().map(b -> b.records().size()).toList(), "committed once max-wait passed");
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }

  @Test
  void runReportsStatusAndStopsOnRequest() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 10);
      long last = Orders.lastPosition(db, testKit.system());
      Projection<LogRecord, Transaction> p = counts(db, 3);
      Pair<ProjectionControl, java.util.concurrent.CompletionStage<ProjectionBatch<LogRecord>>> run = p.source()
          .filter(batch -> batch.position() == last).toMat(Sink.head(), Keep.both()).run(testKit.system());
      await(run.second());
      ProjectionStatus status = run.first().status();
      assertEquals("counts", status.projection());
      assertEquals(last, status.position());
      assertEquals(10, status.records());
      assertTrue(status.batches() >= 4, status.toString());
      assertNull(status.lastError());
      assertEquals(Done.getInstance(), await(run.first().stop()));
      assertEquals(ProjectionState.STOPPED, run.first().status().state());
      assertEquals(Done.getInstance(), await(run.first().stop()), "stop is idempotent");
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }

  @Test
  void whenThroughCompletesOnceThePositionIsHandledAndFailsIfTheRunnerStopsFirst() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 4);
      long fourth = Orders.lastPosition(db, testKit.system());
      ProjectionControl run = counts(db, 1).run(testKit.system());
      await(run.whenThrough(fourth));
      assertEquals(4L, Orders.counts(db).values().stream().mapToLong(Long::longValue).sum(), "read your writes");
      assertEquals(Done.getInstance(), await(run.whenThrough(0)), "a position passed long ago");
      var never = run.whenThrough(Long.MAX_VALUE);
      assertEquals(Done.getInstance(), await(run.stop()));
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(never));
      assertInstanceOf(IllegalStateException.class, e.getCause());
      assertThrows(ExecutionException.class, () -> await(run.whenThrough(Long.MAX_VALUE)), "asked after the stop");
    }
  }

  @Test
  void aRunnerCaughtUpWaitsForNewRecordsWithoutPolling() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      db.createTransactionLog(Orders.LOG); // the projection starts before the first order
      Pair<ProjectionControl, org.apache.pekko.stream.javadsl.SinkQueueWithCancel<ProjectionBatch<LogRecord>>> run =
          counts(db, 100).source().toMat(Sink.queue(), Keep.both()).run(testKit.system());
      for (int i = 1; i <= 3; i++) {
        Orders.place(db, i, i);
        ProjectionBatch<LogRecord> batch = await(run.second().pull()).orElseThrow();
        assertEquals(Orders.lastPosition(db, testKit.system()), batch.position(), "woken by the commit");
      }
      assertEquals(Done.getInstance(), await(run.first().stop()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }

  @Test
  void asAnActorItAnswersStatusAndStopsWithDone() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 6);
      ActorRef<ProjectionActor.Command> actor = testKit.spawn(ProjectionActor.create(counts(db, 2)));
      TestProbe<ProjectionStatus> statuses = testKit.createTestProbe();
      actor.tell(new ProjectionActor.GetStatus(statuses.ref()));
      assertEquals("counts", statuses.receiveMessage().projection());
      TestProbe<Done> stopped = testKit.createTestProbe();
      actor.tell(new ProjectionActor.Stop(stopped.ref()));
      stopped.expectMessage(Done.getInstance());
      stopped.expectTerminated(actor);
      // Whatever it committed before the stop is counted exactly; a new run finishes the rest
      // (or has nothing left, when the actor got through every record before the stop).
      ProjectionControl rest = counts(db, 2).run(testKit.system());
      await(rest.whenThrough(Orders.lastPosition(db, testKit.system())));
      await(rest.stop());
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }

  @Test
  void anActorWhoseProjectionFailsFailsWithTheCause() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      ActorRef<ProjectionActor.Command> actor = testKit.spawn(ProjectionActor.create(
          LocalProjection.of(db, "counts", "no-such-log", Orders.counting(db, null))));
      TestProbe<Object> watcher = testKit.createTestProbe();
      watcher.expectTerminated(actor);
      assertFalse(Files.exists(dir.resolve("txlog").resolve("no-such-log")), "reading a log creates nothing");
    }
  }

  @Test
  void aLogTheDatabaseDoesNotHaveStopsTheProjectionWithUnknownLog() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      ProjectionControl run = LocalProjection.of(db, "counts", "no-such-log", Orders.counting(db, null)).run(testKit.system());
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(run.whenStopped()));
      assertInstanceOf(UnknownLogException.class, e.getCause());
      assertEquals(ProjectionState.FAILED, run.status().state());
      assertTrue(run.status().lastError().contains("no-such-log"), run.status().lastError());
      assertFalse(Files.exists(dir.resolve("txlog").resolve("no-such-log")));
    }
  }

  @Test
  void aPositionStoredForAnotherLogIsRefusedAndNothingIsWritten() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 3);
      runThrough(counts(db, 10), Orders.lastPosition(db, testKit.system()));
      Transaction t = db.begin().useLog("returns").addLogEntry(b("k1"));
      t.put(b("return/1"), b("x"));
      await(db.commit(t));
      Map<String, Long> before = Orders.counts(db);
      ProjectionControl run = LocalProjection.of(db, "counts", "returns", Orders.counting(db, null)).run(testKit.system());
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(run.whenStopped()));
      ProjectionPositionException refused = assertInstanceOf(ProjectionPositionException.class, e.getCause());
      assertTrue(refused.getMessage().contains("a position of log 'orders'"), refused.getMessage());
      assertEquals(before, Orders.counts(db));
    }
  }

  @Test
  void aLogPurgedPastTheStoredPositionStopsTheProjectionInsteadOfSkippingRecords() throws Exception {
    Map<String, Object> smallSegments = Map.of("txlog.max-segment-size", "4 KiB");
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, smallSegments)) {
      Orders.place(db, 1, 3);
      runThrough(counts(db, 10), Orders.lastPosition(db, testKit.system()));
      Orders.place(db, 4, 300); // many segments
    } // a clean close: every record flushed, so retention may purge them
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, smallSegments)) {
      io.commitlane.txlog.PurgeResult purged = db.transactionLog(Orders.LOG).purge(java.time.Instant.now().plusSeconds(60));
      assertTrue(purged.segmentsDeleted() > 2, purged.toString());
      Map<String, Long> before = Orders.counts(db);
      ProjectionControl run = counts(db, 10).run(testKit.system());
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(run.whenStopped()));
      ProjectionPositionException gap = assertInstanceOf(ProjectionPositionException.class, e.getCause());
      assertTrue(gap.getMessage().contains("no longer holds the records after the projection's stored position"), gap.getMessage());
      assertEquals(before, Orders.counts(db), "nothing projected past the gap");
    }
  }

  @Test
  void badNamesAreRefusedWhereTheProjectionIsBuilt() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      assertThrows(IllegalArgumentException.class, () -> LocalProjection.of(db, "", Orders.LOG, (t, r) -> { }));
      assertThrows(IllegalArgumentException.class, () -> LocalProjection.of(db, "a/b", Orders.LOG, (t, r) -> { }));
      assertThrows(IllegalArgumentException.class, () -> LocalProjection.of(db, "counts", ".hidden", (t, r) -> { }));
    }
  }

  @Test
  void settingsComeFromReferenceConfAndEveryBadKeyIsNamed() {
    assertEquals(ProjectionSettings.defaults(), ProjectionSettings.fromConfig(testKit.system()));
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> ProjectionSettings.fromConfig(
        ConfigFactory.parseString("""
            commitlane.projection {
              batch.max-records = 0
              batch.max-recrods = 5
              on-handler-failure = skip
              offset-store = default
              restart-backoff { min = 2 s, max = 1 s }
            }
            """).withFallback(ConfigFactory.defaultReference())));
    String all = e.errors().stream().map(Object::toString).collect(Collectors.joining("\n"));
    for (String key : List.of("commitlane.projection.batch.max-records", "commitlane.projection.batch.max-recrods",
        "commitlane.projection.on-handler-failure", "commitlane.projection.offset-store", "commitlane.projection.restart-backoff.max")) {
      assertTrue(all.contains(key), key + " is named in:\n" + all);
    }
    assertTrue(all.contains("the nearest known key is commitlane.projection.batch.max-records"), all);
    assertThrows(InvalidSettingsException.class, () -> ProjectionSettings.defaults().withOffsetStore("__commitlane_x"));
    assertThrows(InvalidSettingsException.class, () -> ProjectionSettings.defaults().withMaxBatchWait(Duration.ofHours(2)));
  }
}
