package io.commitlane.actors.projection;

import static io.commitlane.actors.projection.Orders.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import io.commitlane.txlog.LogRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handler that throws (stop, or retry with backoff up to max-restarts), and a stop while a batch
 * is being committed: a failed batch writes nothing, a stop waits for the batch's outcome, and
 * the next run goes on from exactly where the last committed batch ended.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ProjectionFailureTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Backoff QUICK = Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2));

  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  /** Counts, but throws on a batch holding key {@code k3}: the first {@code times} times, or always when {@code times} is -1. */
  private static ProjectionHandler<LogRecord, Transaction> failingOnK3(CommitlaneDatabase db, int times) {
    ProjectionHandler<LogRecord, Transaction> counting = Orders.counting(db, null);
    AtomicInteger left = new AtomicInteger(times);
    return (txn, records) -> {
      counting.handle(txn, records); // its writes are in the transaction when it throws: they must not land
      boolean k3 = records.stream().anyMatch(r -> Orders.s(Orders.key(r)).equals("k3"));
      if (k3 && (times < 0 || left.getAndDecrement() > 0)) {
        throw new IllegalStateException("cannot project order of k3");
      }
    };
  }

  @Test
  void aHandlerThatThrowsStopsTheProjectionWithNothingOfItsBatchWritten() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 5); // k1 k2 k3 k4 k0: batches of one, the third throws
      List<LogRecord> records = Orders.records(db, testKit.system());
      Projection<LogRecord, Transaction> p = LocalProjection.of(db, "counts", Orders.LOG, failingOnK3(db, -1))
          .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(1));
      ProjectionControl[] run = new ProjectionControl[1];
      LoggingTestKit.error("projection 'counts' (log 'orders' of database " + db.path() + ") stopped (on-handler-failure = stop)")
          .withLoggerName("io.commitlane.actors.projection.Projection")
          .expect(testKit.system(), () -> {
            run[0] = p.run(testKit.system());
            ExecutionException e = assertThrows(ExecutionException.class, () -> await(run[0].whenStopped()));
            ProjectionHandlerException failed = assertInstanceOf(ProjectionHandlerException.class, e.getCause());
            assertEquals("cannot project order of k3", failed.getCause().getMessage());
            assertEquals(records.get(1).position(), failed.after());
            assertEquals(records.get(2).position(), failed.through());
            return null;
          });
      ProjectionStatus status = run[0].status();
      assertEquals(ProjectionState.FAILED, status.state());
      assertEquals(records.get(1).position(), status.position());
      assertTrue(status.lastError().startsWith("ProjectionHandlerException: projection 'counts': its handler failed"), status.lastError());
      assertEquals(Map.of("k1", 1L, "k2", 1L), Orders.counts(db), "the failed batch wrote nothing");
    }
  }

  @Test
  void underRetryAFailedBatchIsReadAgainFromTheStoredPositionAfterTheBackoff() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 10);
      long last = Orders.lastPosition(db, testKit.system());
      Projection<LogRecord, Transaction> p = LocalProjection.of(db, "counts", Orders.LOG, failingOnK3(db, 2))
          .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(4).withOnHandlerFailure(HandlerFailure.RETRY)
              .withRestartBackoff(QUICK, -1));
      // A sink that keeps consuming: Sink.head would cancel the projection once the last batch passed,
      // racing the status read below.
      CompletableFuture<ProjectionBatch<LogRecord>> reachedLast = new CompletableFuture<>();
      ProjectionControl run = LoggingTestKit
          .warn("its handler failed on the batch of 4 records after position").withOccurrences(2)
          .expect(testKit.system(), () -> {
            ProjectionControl control = p.source()
                .toMat(Sink.foreach(b -> {
                  if (b.position() == last) {
                    reachedLast.complete(b);
                  }
                }), Keep.left())
                .run(testKit.system());
            reachedLast.orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
            return control;
          });
      ProjectionStatus status = run.status();
      assertEquals(2, status.restarts());
      assertEquals(0, status.conflicts());
      assertTrue(status.lastError().contains("cannot project order of k3"), status.lastError());
      assertEquals(ProjectionState.RUNNING, status.state());
      assertEquals(Done.getInstance(), await(run.stop()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db), "the retried batch applied once");
    }
  }

  @Test
  void restartsInARowPastMaxRestartsStopTheProjection() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 5);
      Projection<LogRecord, Transaction> p = LocalProjection.of(db, "counts", Orders.LOG, failingOnK3(db, -1))
          .withSettings(ProjectionSettings.defaults().withMaxBatchRecords(1).withOnHandlerFailure(HandlerFailure.RETRY)
              .withRestartBackoff(QUICK, 2));
      ProjectionControl run = p.run(testKit.system());
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(run.whenStopped()));
      assertInstanceOf(ProjectionHandlerException.class, e.getCause());
      assertEquals(2, run.status().restarts(), "two restarts, then the third failure in a row stops it");
      assertEquals(ProjectionState.FAILED, run.status().state());
      assertEquals(Map.of("k1", 1L, "k2", 1L), Orders.counts(db));
    }
  }

  @Test
  void aStopWhileABatchCommitsWaitsForItsOutcomeAndTheNextRunGoesOnAfterIt() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of());
         StageControl control = StageControl.install(db.storage())) {
      Orders.place(db, 1, 3);
      long third = Orders.lastPosition(db, testKit.system());
      Barrier written = control.barrier(CommitStage.WRITTEN, "P");
      Projection<LogRecord, Transaction> p = LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, "P"));
      Pair<ProjectionControl, SinkQueueWithCancel<ProjectionBatch<LogRecord>>> run =
          p.source().toMat(Sink.queue(), Keep.both()).run(testKit.system());
      written.awaitArrival(WAIT); // its batch of 1..3 is in RocksDB, not yet acknowledged
      CompletionStage<Done> stopped = run.first().stop();
      Orders.place(db, 4, 5);     // committed while it stops: left for the next run
      written.release();
      Optional<ProjectionBatch<LogRecord>> batch = await(run.second().pull());
      assertEquals(third, batch.orElseThrow().position(), "the batch being committed was seen through, and emitted");
      assertEquals(Optional.empty(), await(run.second().pull()), "then the stream completed");
      assertSame(Done.getInstance(), await(stopped));
      assertEquals(third, run.first().status().position());
      assertEquals(ProjectionState.STOPPED, run.first().status().state());

      var next = p.source().toMat(Sink.queue(), Keep.both()).run(testKit.system());
      ProjectionBatch<LogRecord> rest = await(next.second().pull()).orElseThrow();
      assertEquals(third, rest.after());
      assertEquals(Orders.lastPosition(db, testKit.system()), rest.position());
      assertEquals(Done.getInstance(), await(next.first().stop()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }

  @Test
  void anAbortFailsTheProjectionAtOnceAndItsBatchCommitsOrNotAsAWhole() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of());
         StageControl control = StageControl.install(db.storage())) {
      Orders.place(db, 1, 3);
      Barrier dequeued = control.barrier(CommitStage.DEQUEUED, "P");
      Projection<LogRecord, Transaction> p = LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, "P"));
      ProjectionControl run = p.run(testKit.system());
      dequeued.awaitArrival(WAIT);
      IllegalStateException reason = new IllegalStateException("shutting down");
      run.abort(reason);
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(run.whenStopped()));
      assertSame(reason, e.getCause());
      assertEquals(ProjectionState.FAILED, run.status().state());
      dequeued.release();
      // The held commit goes on without its runner; whether it lands before the next run reads the position or
      // after (then that run conflicts and reads it again), the next run goes on right after what landed.
      Orders.place(db, 4, 4);
      long last = Orders.lastPosition(db, testKit.system());
      var again = LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, null)).source()
          .takeWhile(b -> b.position() != last, true).toMat(Sink.ignore(), Keep.left()).run(testKit.system());
      assertEquals(Done.getInstance(), await(again.whenStopped()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
    }
  }
}
