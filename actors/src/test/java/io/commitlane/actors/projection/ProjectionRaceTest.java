package io.commitlane.actors.projection;

import static io.commitlane.actors.projection.Orders.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.ClassTestKit;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.projection.internal.LocalProjectionStore;
import io.commitlane.actors.projection.internal.StoredPosition;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runners of one projection, their commits forced into each other with stage barriers: only
 * one applies each batch, the other gets a conflict, reads the stored position again and goes on
 * from it. Counts stay exact either way round.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class ProjectionRaceTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  private static Projection<LogRecord, Transaction> runner(CommitlaneDatabase db, String tag) {
    return LocalProjection.of(db, "counts", Orders.LOG, Orders.counting(db, tag));
  }

  private static Pair<ProjectionControl, SinkQueueWithCancel<ProjectionBatch<LogRecord>>> start(Projection<LogRecord, Transaction> p) {
    return p.source().toMat(Sink.queue(), Keep.both()).run(testKit.system());
  }

  private static ProjectionBatch<LogRecord> next(SinkQueueWithCancel<ProjectionBatch<LogRecord>> queue) throws Exception {
    Optional<ProjectionBatch<LogRecord>> batch = await(queue.pull());
    return batch.orElseThrow(() -> new AssertionError("the projection ended"));
  }

  @Test
  void theRunnerWhoseCommitComesSecondConflictsAndGoesOnFromTheWinnersPosition() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of());
         StageControl control = StageControl.install(db.storage())) {
      control.commitExecutors(2, "commitlane-commit-");
      Orders.place(db, 1, 5);
      long fifth = Orders.lastPosition(db, testKit.system());
      Barrier aDequeued = control.barrier(CommitStage.DEQUEUED, "A");
      var a = start(runner(db, "A"));
      aDequeued.awaitArrival(WAIT); // A read the position (none), ran its handler on 1..5, and waits to be validated

      var b = start(runner(db, "B"));
      ProjectionBatch<LogRecord> bFirst = next(b.second());
      assertEquals(StoredPosition.NONE, bFirst.after());
      assertEquals(fifth, bFirst.position(), "B applied 1..5");
      assertEquals(Done.getInstance(), await(b.first().stop()));

      aDequeued.release(); // A's commit is validated now: the position it read was written after its snapshot
      Orders.place(db, 6, 6);
      ProjectionBatch<LogRecord> aNext = next(a.second());
      assertEquals(fifth, aNext.after(), "A read the stored position again and went on after B's batch");
      assertEquals(List.of(Orders.lastPosition(db, testKit.system())), aNext.records().stream().map(LogRecord::position).toList());
      ProjectionStatus status = a.first().status();
      assertEquals(1, status.conflicts(), status.toString());
      assertEquals(1, status.batches(), "A's batch of 1..5 never applied");
      assertNull(status.lastError(), "a conflict is not an error");
      assertEquals(Done.getInstance(), await(a.first().stop()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db), "each order counted once");
      assertEquals(6L, Orders.counts(db).values().stream().mapToLong(Long::longValue).sum());
    }
  }

  /**
   * A handler that only writes reads nothing a commit could conflict on, and under {@code
   * occ-blind-writes = ordered} its writes never conflict: the position read inside the batch's
   * transaction is all that keeps the second runner's batch out.
   */
  @Test
  void withBlindWritesThatNeverConflictThePositionReadAloneKeepsTheLosersBatchOut() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of("occ-blind-writes", "ordered"));
         StageControl control = StageControl.install(db.storage())) {
      control.commitExecutors(2, "commitlane-commit-");
      Orders.place(db, 1, 5);
      io.commitlane.storage.Store model = db.storage().store("model");
      java.util.function.Function<String, ProjectionHandler<LogRecord, Transaction>> marking = tag -> (txn, records) -> {
        txn.tag(tag);
        for (LogRecord r : records) {
          txn.put(model, Orders.b("applied/" + r.position() + "/" + tag), Orders.b("1")); // written, never read
        }
      };
      Barrier aDequeued = control.barrier(CommitStage.DEQUEUED, "A");
      var a = start(LocalProjection.of(db, "marks", Orders.LOG, marking.apply("A")));
      aDequeued.awaitArrival(WAIT);
      var b = start(LocalProjection.of(db, "marks", Orders.LOG, marking.apply("B")));
      assertEquals(Orders.lastPosition(db, testKit.system()), next(b.second()).position());
      assertEquals(Done.getInstance(), await(b.first().stop()));
      aDequeued.release();
      Orders.place(db, 6, 6);
      assertEquals(Orders.lastPosition(db, testKit.system()), next(a.second()).position());
      assertEquals(1, a.first().status().conflicts());
      assertEquals(Done.getInstance(), await(a.first().stop()));
      List<String> applied = new java.util.ArrayList<>();
      for (LogRecord r : Orders.records(db, testKit.system())) {
        for (String tag : List.of("A", "B")) {
          if (db.storage().get(model, Orders.b("applied/" + r.position() + "/" + tag)) != null) {
            applied.add(tag);
          }
        }
      }
      assertEquals(List.of("B", "B", "B", "B", "B", "A"), applied, "each record applied by one runner, once");
    }
  }

  @Test
  void aRunnerThatValidatedFirstHoldsTheOtherOffAndTheOtherConflicts() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of());
         StageControl control = StageControl.install(db.storage())) {
      control.commitExecutors(2, "commitlane-commit-");
      Orders.place(db, 1, 5);
      long fifth = Orders.lastPosition(db, testKit.system());
      Barrier aValidated = control.barrier(CommitStage.VALIDATED, "A");
      Barrier bDequeued = control.barrier(CommitStage.DEQUEUED, "B");
      var a = start(runner(db, "A"));
      aValidated.awaitArrival(WAIT); // A passed validation and holds its locks, the position's among them
      var b = start(runner(db, "B"));
      bDequeued.awaitArrival(WAIT); // B handled 1..5 too, from the same stored position
      bDequeued.release();          // B's validation waits for A's locks
      aValidated.release();
      assertEquals(fifth, next(a.second()).position(), "A committed 1..5");
      assertEquals(Done.getInstance(), await(a.first().stop()));
      Orders.place(db, 6, 6);
      ProjectionBatch<LogRecord> bNext = next(b.second());
      assertEquals(fifth, bNext.after(), "B conflicted, read A's position and went on after it");
      assertEquals(1, b.first().status().conflicts());
      assertEquals(1, b.first().status().batches(), "B's batch of 1..5 never applied");
      assertEquals(Done.getInstance(), await(b.first().stop()));
      assertEquals(Orders.expected(db, testKit.system()), Orders.counts(db));
      assertEquals(6L, Orders.counts(db).values().stream().mapToLong(Long::longValue).sum());
    }
  }

  @Test
  void aCommitAfterThePositionMovedIsRefusedBeforeTheHandlerRuns() throws Exception {
    try (CommitlaneDatabase db = Orders.open(testKit.system(), dir, Map.of())) {
      Orders.place(db, 1, 3);
      List<LogRecord> records = Orders.records(db, testKit.system());
      LocalProjectionStore store = new LocalProjectionStore(db, Orders.LOG);
      String offsets = ProjectionSettings.defaults().offsetStore();
      await(store.load(offsets, "counts"));
      await(store.commit(offsets, "counts", StoredPosition.NONE, records.subList(0, 2), Orders.counting(db, null)));
      int[] handled = {0};
      CompletionStage<Long> stale = store.commit(offsets, "counts", StoredPosition.NONE, records, (txn, batch) -> handled[0]++);
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(stale));
      ProjectionConflictException conflict = assertInstanceOf(ProjectionConflictException.class, e.getCause());
      assertEquals(StoredPosition.NONE, conflict.expected());
      assertEquals(records.get(1).position(), conflict.stored());
      assertTrue(conflict.isRetryable());
      assertEquals(0, handled[0], "the handler never saw a batch it could not commit");
      assertEquals(records.get(1).position(), await(store.load(offsets, "counts")).position());
    }
  }
}
