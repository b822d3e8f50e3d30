package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.Transaction;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the facade, the supervisor and the executors of one database share: the storage handle,
 * the admission gate, the queue and the runner. Admission happens on the caller's thread.
 */
final class Pipeline {
  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);

  final String name;
  final Database db;
  final PipelineSettings settings;
  final Executor completions;
  /** Runs commit callbacks on {@link #completions}, batched while an executor drains. */
  final CompletionBatcher callbacks;
  final AdmissionGate gate = new AdmissionGate();
  final CommitQueue queue;
  final CommitRunner runner;
  final Faults faults;
  final LongAdder retries = new LongAdder();
  final TransactionLogs logs;
  volatile ActorRef<TransactionLogActor.Command> logActor;
  volatile Database.Registration flushListener;
  private final AtomicBoolean released = new AtomicBoolean();
  private volatile boolean inline;

  Pipeline(String name, Database db, PipelineSettings settings, Executor completions, Faults faults, TransactionLogs logs) {
    this.name = name;
    this.logs = logs;
    this.db = db;
    this.settings = settings;
    this.completions = completions;
    this.callbacks = new CompletionBatcher(completions);
    this.faults = faults;
    this.queue = new CommitQueue(db.path(), settings.commitQueueCapacity(), settings.commitThreads(), gate);
    this.runner = new CommitRunner(gate, db);
  }

  CommitFuture<CommitResult> commit(Transaction txn) {
    CommitFuture<CommitResult> f = new CommitFuture<>(callbacks);
    admit(new CommitRequest(txn, CommitRequest.toFuture(f)));
    return f;
  }

  void commit(Transaction txn, ActorRef<CommitReply> replyTo) {
    admit(new CommitRequest(txn, CommitRequest.toActor(txn.id(), replyTo)));
  }

  private void admit(CommitRequest r) {
    if (settings.mode() == PipelineMode.LEGACY) {
      if (!gate.tryAdmit()) {
        r.completion.failed(new DatabaseClosedException(db.path()));
        return;
      }
      // The baseline: the blocking commit occupies a completion-dispatcher thread.
      completions.execute(() -> runner.execute(r).deliver());
      return;
    }
    CommitQueue.Admission a;
    try {
      a = queue.offer(r);
    } catch (RuntimeException e) {
      r.completion.failed(e); // an injected failure at ADMITTED
      return;
    }
    switch (a) {
      case FULL -> r.completion.failed(new CommitQueueFullException(name, queue.capacity()));
      case CLOSED -> r.completion.failed(new DatabaseClosedException(db.path()));
      case ADMITTED -> {
        if (inline && queue.executors() == 0) {
          drainInline();
        }
      }
    }
  }

  /** No executor thread could be started: run what is queued on the current thread. */
  void runInline() {
    inline = true;
    drainInline();
  }

  private void drainInline() {
    for (CommitRequest r; (r = queue.poll()) != null; ) {
      runner.execute(r).deliver();
    }
  }

  PipelineStats stats() {
    return new PipelineStats(queue.depth(), gate.inFlight(), queue.executors(), queue.idleExecutors(),
        queue.admitted.sum(), runner.committed.sum(), runner.conflicts.sum(), runner.failed.sum(), queue.overloaded.sum(),
        retries.sum(), runner.queueWait.getIntervalHistogram(), runner.execution.getIntervalHistogram(), db.stats(),
        logs.stats(), runner.groupSize.getIntervalHistogram());
  }

  /**
   * Release this facade's share of the database once: stop hearing flushes, release the logs
   * (closed with the last facade of the path), then the storage handle, whose close lets
   * in-flight native calls finish first.
   */
  void release() {
    if (released.compareAndSet(false, true)) {
      try {
        Database.Registration r = flushListener;
        if (r != null) {
          r.close();
        }
        ActorRef<TransactionLogActor.Command> a = logActor;
        if (a != null) {
          a.tell(TransactionLogActor.Stop.INSTANCE);
        }
        LogRegistry.release(db);
      } catch (RuntimeException e) {
        LOG.error("closing the transaction logs of {} failed", name, e);
      }
      try {
        db.close();
      } catch (RuntimeException e) {
        LOG.error("closing database {} failed", name, e);
      }
    }
  }

  boolean isReleased() {
    return released.get();
  }
}
