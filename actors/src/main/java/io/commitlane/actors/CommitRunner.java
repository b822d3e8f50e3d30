package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Executes one admitted commit and delivers its outcome; the same steps in every mode. */
final class CommitRunner {
  private static final Logger LOG = LoggerFactory.getLogger(CommitRunner.class);

  final LongAdder committed = new LongAdder();
  final LongAdder conflicts = new LongAdder();
  final LongAdder failed = new LongAdder();
  final Recorder queueWait = new Recorder(3);
  final Recorder execution = new Recorder(3);
  private final AdmissionGate gate;

  CommitRunner(AdmissionGate gate) {
    this.gate = gate;
  }

  /** The outcome of a commit, delivered separately so an executor can go idle first. */
  final class Outcome {
    private final CommitRequest request;
    private final CommitResult result;
    private final Throwable failure;
    private final long startNanos;

    private Outcome(CommitRequest request, CommitResult result, Throwable failure, long startNanos) {
      this.request = request;
      this.result = result;
      this.failure = failure;
      this.startNanos = startNanos;
    }

    /**
     * Deliver now, or once the log record is durable when the log promises fsync durability (the
     * future completes on the log's force thread; delivering only completes a future or tells an
     * actor, so no user code runs there).
     */
    void deliver() {
      CompletableFuture<Void> durable = failure == null ? TransactionLogs.whenDurable(result.attachment()) : null;
      if (durable == null || (durable.isDone() && !durable.isCompletedExceptionally())) {
        deliverNow(null);
      } else {
        durable.whenComplete((ok, err) -> deliverNow(err));
      }
    }

    private void deliverNow(Throwable notDurable) {
      try {
        if (notDurable != null) {
          // Written to RocksDB but not provably durable: report the log's failure, never success.
          request.completion.failed(notDurable instanceof CompletionException c && c.getCause() != null
              ? c.getCause() : notDurable);
        } else if (failure == null) {
          request.completion.committed(result);
        } else {
          request.completion.failed(failure);
        }
      } finally {
        gate.completed();
        execution.recordValue(Math.max(0, System.nanoTime() - startNanos));
      }
      try {
        request.txn.reportStage(CommitStage.COMPLETED);
      } catch (RuntimeException e) {
        // The outcome is delivered; a listener cannot take it back.
        LOG.warn("stage listener failed at COMPLETED for transaction {}", request.txn.id(), e);
      }
    }
  }

  Outcome execute(CommitRequest r) {
    long start = System.nanoTime();
    queueWait.recordValue(Math.max(0, start - r.admittedNanos));
    try {
      r.txn.reportStage(CommitStage.DEQUEUED);
      CommitResult result = r.txn.commitSync();
      committed.increment();
      return new Outcome(r, result, null, start);
    } catch (ConflictException e) {
      conflicts.increment();
      return new Outcome(r, null, e, start);
    } catch (RuntimeException e) {
      failed.increment();
      return new Outcome(r, null, e, start);
    } catch (Error e) {
      failed.increment();
      new Outcome(r, null, e, start).deliver();
      throw e;
    }
  }
}
