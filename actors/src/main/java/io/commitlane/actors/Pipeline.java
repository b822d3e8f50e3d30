package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreClaims;
import io.commitlane.storage.Transaction;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.Done;
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
  private volatile Throwable closeFailure;

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
    admit(txn, CommitRequest.toFuture(f));
    return f;
  }

  void commit(Transaction txn, ActorRef<CommitReply> replyTo) {
    admit(txn, CommitRequest.toActor(txn.id(), replyTo));
  }

  /**
   * Claim the named stores the transaction writes before it is admitted: a store dropped from
   * then on is physically dropped only after this commit ends. A store already dropped fails the
   * commit here, typed, before it takes a place in the queue.
   */
  private void admit(Transaction txn, CommitRequest.Completion completion) {
    StoreClaims claims;
    try {
      claims = txn.claimStores();
    } catch (RuntimeException e) {
      completion.failed(e); // StoreDroppedException, or a transaction that already ended
      return;
    }
    admit(new CommitRequest(txn, claims.size() == 0 ? completion : releasing(claims, completion)));
  }

  /**
   * The claims go back when the outcome is delivered, whichever way it is: commitSync gives them
   * back itself when it ends, so this matters for commits that never ran (full queue, closed
   * database, actor system stopping, a failure injected at ADMITTED or DEQUEUED).
   */
  private static CommitRequest.Completion releasing(StoreClaims claims, CommitRequest.Completion completion) {
    return new CommitRequest.Completion() {
      @Override
      public void committed(CommitResult result) {
        claims.release();
        completion.committed(result);
      }

      @Override
      public void failed(Throwable cause) {
        claims.release();
        completion.failed(cause);
      }
    };
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

  /** Create a store (see {@link Database#createStore}); completes on the completion executor. */
  CommitFuture<Store> createStore(String name) {
    CommitFuture<Store> f = new CommitFuture<>(completions);
    try {
      db.createStore(name).whenComplete((store, err) -> complete(f, store, err));
    } catch (RuntimeException e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  /**
   * Drop a store: logical before this returns (the intent is synced on this thread), physical
   * once no admitted commit names it. Completes on the completion executor.
   */
  CommitFuture<Done> dropStore(String name) {
    CommitFuture<Done> f = new CommitFuture<>(completions);
    try {
      db.dropStore(name).whenComplete((v, err) -> complete(f, Done.getInstance(), err));
    } catch (RuntimeException e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  /** Runs on the store-drop thread or the caller: only completes; dependents go to the completion executor. */
  private static <T> void complete(CommitFuture<T> f, T value, Throwable err) {
    if (err == null) {
      f.complete(value);
    } else {
      f.completeExceptionally(err instanceof CompletionException && err.getCause() != null ? err.getCause() : err);
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
   * (closed with the last facade of the path, after a final flush), then the storage handle,
   * whose close lets in-flight native calls finish first. A failure of either (a final flush that
   * could not be written) is kept for {@link #closeFailure()}: acknowledged commits may be lost,
   * and the closer must hear of it.
   */
  void release() {
    if (released.compareAndSet(false, true)) {
      Throwable failure = null;
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
        failure = e;
      }
      try {
        db.close();
      } catch (RuntimeException e) {
        LOG.error("closing database {} failed", name, e);
        failure = failure == null ? e : failure;
      }
      closeFailure = failure;
    }
  }

  /** What went wrong when this facade's share was released, or null (also before release). */
  Throwable closeFailure() {
    return closeFailure;
  }

  boolean isReleased() {
    return released.get();
  }
}
