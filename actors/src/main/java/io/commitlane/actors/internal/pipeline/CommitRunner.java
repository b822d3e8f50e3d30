package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.internal.events.CommitAcknowledgedEvent;
import io.commitlane.actors.internal.events.CommitDequeuedEvent;
import io.commitlane.actors.internal.log.TransactionLogs;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.GroupResult;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.internal.commit.TwoLaneCommits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Executes one admitted commit and delivers its outcome; the same steps in every mode. */
public final class CommitRunner {
  private static final Logger LOG = LoggerFactory.getLogger(CommitRunner.class);

  public final LongAdder committed = new LongAdder();
  public final LongAdder conflicts = new LongAdder();
  public final LongAdder failed = new LongAdder();
  final IntervalRecorder queueWait = new IntervalRecorder(3);
  final IntervalRecorder execution = new IntervalRecorder(3);
  /** Members per merged write group. */
  final IntervalRecorder groupSize = new IntervalRecorder(3);
  private final Database db;
  /** The database's transaction logs: a logged commit's outcome waits for its record's durability. */
  private final TransactionLogs logs;
  /** The database's path, as Flight Recorder events name it. */
  private final String database;

  CommitRunner(Database db, TransactionLogs logs) {
    this.db = db;
    this.logs = logs;
    this.database = db.path().toString();
  }

  /** The outcome of a commit, delivered separately so an executor can go idle first. */
  public final class Outcome {
    private final CommitRequest request;
    private final CommitResult result;
    private final Throwable failure;
    private final long startNanos;
    /** Set for a commit the log lane prepared: delivering it hands it to this write lane instead. */
    private final WriteLane next;

    private Outcome(CommitRequest request, CommitResult result, Throwable failure, long startNanos) {
      this(request, result, failure, startNanos, null);
    }

    private Outcome(CommitRequest request, CommitResult result, Throwable failure, long startNanos, WriteLane next) {
      this.request = request;
      this.result = result;
      this.failure = failure;
      this.startNanos = startNanos;
      this.next = next;
    }

    /**
     * The completion of a commit, in order: (1) the write's result (this outcome); (2) the log
     * record's durability: deliver now, or once the record is durable when the log promises
     * fsync durability or its writer finishes it ({@code txlog.append = actor}), a record that
     * cannot be made durable turning the outcome into {@link io.commitlane.storage.NotDurableException};
     * (3) {@link CommitRequest#complete}: the claimed stores go back, the request id's attempt
     * is settled in the ledger, the reply is told; (4) the gate counts the commit completed and
     * the execution is recorded; (5) the {@link CommitStage#COMPLETED} stage. A prepared commit of
     * the log lane is handed to the write lane instead. Step 2 may finish on the log's force or
     * writer thread; delivering only completes a future or tells an actor, so no user code runs
     * there.
     */
    void deliver() {
      if (next != null) {
        next.handOff(request, CommitRunner.this);
        return;
      }
      CompletableFuture<Void> durable = failure == null ? logs.whenDurable(result) : null;
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
          request.complete(null, notDurable instanceof CompletionException c && c.getCause() != null
              ? c.getCause() : notDurable);
        } else {
          request.complete(result, failure);
        }
      } finally {
        request.gate.completed();
        long executed = Math.max(0, System.nanoTime() - startNanos);
        execution.recordValue(executed);
        if (CommitAcknowledgedEvent.TYPE.isEnabled()) {
          recordAcknowledged(notDurable, executed);
        }
      }
      try {
        request.txn.reportStage(CommitStage.COMPLETED);
      } catch (RuntimeException e) {
        // The outcome is delivered; a listener cannot take it back.
        LOG.warn("stage listener failed at COMPLETED for transaction {}", request.txn.id(), e);
      }
    }

    private void recordAcknowledged(Throwable notDurable, long executed) {
      CommitAcknowledgedEvent e = new CommitAcknowledgedEvent();
      if (e.shouldCommit()) {
        e.database = database;
        e.transactionId = request.txn.id();
        e.outcome = notDurable != null ? "NOT_DURABLE" : failure == null ? "COMMITTED"
            : failure instanceof ConflictException ? "CONFLICTED" : "FAILED";
        e.queueWait = Math.max(0, startNanos - request.admittedNanos);
        e.execution = executed;
        e.commit();
      }
    }
  }

  private void recordDequeued(CommitRequest r, long waited, int groupSize) {
    CommitDequeuedEvent e = new CommitDequeuedEvent();
    if (e.shouldCommit()) {
      e.database = database;
      e.transactionId = r.txn.id();
      e.queueWait = waited;
      e.groupSize = groupSize;
      e.commit();
    }
  }

  Outcome execute(CommitRequest r) {
    long start = dequeued(r);
    try {
      r.txn.reportStage(CommitStage.DEQUEUED);
      CommitResult result = r.txn.commitSync();
      committed.increment();
      return new Outcome(r, result, null, start);
    } catch (RuntimeException e) {
      return failedOutcome(r, e, start);
    } catch (Error e) {
      failed.increment();
      new Outcome(r, null, e, start).deliver();
      throw e;
    }
  }

  /**
   * The log lane of a two-lane pipeline: validate the commit and append its log record. Delivering
   * the outcome of a prepared commit hands it to {@code writes}; a conflict or failure is
   * delivered to the committer as usual.
   */
  public Outcome prepare(CommitRequest r, WriteLane writes) {
    long start = dequeued(r);
    try {
      r.txn.reportStage(CommitStage.DEQUEUED);
      if (TwoLaneCommits.prepareWrite(r.txn)) {
        return new Outcome(r, null, null, start, writes);
      }
      committed.increment(); // nothing to write: committed already
      return new Outcome(r, new CommitResult(r.txn.id(), 0, null), null, start);
    } catch (RuntimeException e) {
      return failedOutcome(r, e, start);
    } catch (Error e) {
      failed.increment();
      new Outcome(r, null, e, start).deliver();
      throw e;
    }
  }

  /** The write lane of a two-lane pipeline: write a commit the log lane prepared. */
  public Outcome writePrepared(CommitRequest r) {
    long start = r.dequeuedNanos; // its execution spans both lanes, from the log lane taking it
    try {
      CommitResult result = TwoLaneCommits.writePrepared(r.txn);
      committed.increment();
      return new Outcome(r, result, null, start);
    } catch (RuntimeException e) {
      return failedOutcome(r, e, start);
    } catch (Error e) {
      failed.increment();
      new Outcome(r, null, e, start).deliver();
      throw e;
    }
  }

  /** Taken off the queue now: records the queue wait and returns now. */
  private long dequeued(CommitRequest r) {
    long start = System.nanoTime();
    r.dequeuedNanos = start;
    long waited = Math.max(0, start - r.admittedNanos);
    queueWait.recordValue(waited);
    if (CommitDequeuedEvent.TYPE.isEnabled()) {
      recordDequeued(r, waited, 1);
    }
    return start;
  }

  private Outcome failedOutcome(CommitRequest r, RuntimeException e, long start) {
    if (e instanceof ConflictException) {
      conflicts.increment();
    } else {
      failed.increment();
    }
    return new Outcome(r, null, e, start);
  }

  /**
   * Execute queued commits as one merged write group ({@link Database#commitGroup}): each member
   * gets its own outcome, in member order. A member whose DEQUEUED listener fails fails alone.
   */
  List<Outcome> executeGroup(List<CommitRequest> requests) {
    long start = System.nanoTime();
    int n = requests.size();
    Outcome[] outcomes = new Outcome[n];
    List<Transaction> members = new ArrayList<>(n);
    int[] positions = new int[n];
    for (int i = 0; i < n; i++) {
      CommitRequest r = requests.get(i);
      long waited = Math.max(0, start - r.admittedNanos);
      queueWait.recordValue(waited);
      if (CommitDequeuedEvent.TYPE.isEnabled()) {
        recordDequeued(r, waited, n);
      }
      try {
        r.txn.reportStage(CommitStage.DEQUEUED);
        positions[members.size()] = i;
        members.add(r.txn);
      } catch (RuntimeException e) {
        failed.increment();
        outcomes[i] = new Outcome(r, null, e, start);
      }
    }
    groupSize.recordValue(members.size());
    GroupResult result = db.commitGroup(members);
    Error error = null;
    for (int k = 0; k < members.size(); k++) {
      int i = positions[k];
      Throwable failure = result.failure(k);
      if (failure == null) {
        committed.increment();
      } else if (failure instanceof ConflictException) {
        conflicts.increment();
      } else {
        failed.increment();
        error = error == null && failure instanceof Error e ? e : error;
      }
      outcomes[i] = new Outcome(requests.get(i), result.result(k), failure, start);
    }
    List<Outcome> all = List.of(outcomes);
    if (error != null) {
      all.forEach(Outcome::deliver); // as for a lone commit: deliver, then let the supervisor restart the executor
      throw error;
    }
    return all;
  }
}
