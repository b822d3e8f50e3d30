package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.AdmissionTicket;
import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.PipelineStats;
import io.commitlane.actors.internal.log.ReplayBacklog;
import io.commitlane.actors.internal.log.TransactionLogs;
import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreClaims;
import io.commitlane.storage.Transaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.Done;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every handle, the supervisor and the executors of one open database path share: the
 * storage handle, the transaction logs, the queue and the runner. One per path per actor system.
 * Admission happens on the caller's thread, through the caller's handle's {@link AdmissionGate}.
 *
 * <p>It owns its state: the parts fixed at open are read through accessors, the rest (gates,
 * closing, release) changes only through its own methods.
 */
public final class Pipeline {
  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);

  private final String name;
  private final Database db;
  private final PipelineSettings settings;
  private final Executor completions;
  /** Runs commit callbacks on {@link #completions}, batched while an executor drains. */
  private final CompletionBatcher callbacks;
  /** Where commits are admitted; in two-lane mode its one executor is the log lane. */
  private final CommitQueue queue;
  /** Two-lane mode: the commits the log lane prepared, for the commit executors to write; null in other modes. */
  private final WriteLane writes;
  /** The commit-step strategy of the mode: the lanes with executors, and what each executor runs. */
  private final CommitLanes lanes;
  private final CommitRunner runner;
  private final Faults faults;
  private final LongAdder retries = new LongAdder();
  private final TransactionLogs logs;
  private final Database.Registration logHook;
  /** The request ids this database applied (a commit hook after the log's: it needs the record's position). */
  private final RequestLedger requests;
  private final Database.Registration requestHook;
  private volatile Database.Registration flushListener;
  /** The gates of the handles admitting into this pipeline; guarded by this. */
  private final List<AdmissionGate> gates = new ArrayList<>();
  /** Guarded by this: set once every gate was closed for good (the database is closing). */
  private boolean closing;
  private final AtomicBoolean released = new AtomicBoolean();
  private volatile boolean inline;
  private volatile Throwable closeFailure;
  /** Of a read-only open, per log: the records a normal open would replay, counted at open ({@link ReplayBacklog}). */
  private volatile Map<String, Long> unappliedLogRecords = Map.of();

  // ---- what the rest of the package reads: fixed at open ----------------------------------

  public String name() {
    return name;
  }

  public Database db() {
    return db;
  }

  public PipelineSettings settings() {
    return settings;
  }

  /** Where commit callbacks and other completions run. */
  public Executor completions() {
    return completions;
  }

  /** Runs commit callbacks on {@link #completions()}, batched while an executor drains. */
  public CompletionBatcher callbacks() {
    return callbacks;
  }

  /** Where commits are admitted; in two-lane mode its one executor is the log lane. */
  public CommitQueue queue() {
    return queue;
  }

  /** Two-lane mode: the commits the log lane prepared, for the commit executors to write; null in other modes. */
  public WriteLane writes() {
    return writes;
  }

  /** The commit-step strategy of the mode: the lanes with executors, and what each executor runs. */
  public CommitLanes lanes() {
    return lanes;
  }

  public CommitRunner runner() {
    return runner;
  }

  public Faults faults() {
    return faults;
  }

  /** Attempts the async retry helper made after a conflict. */
  public LongAdder retries() {
    return retries;
  }

  public TransactionLogs logs() {
    return logs;
  }

  /** The request ids this database applied. */
  public RequestLedger requests() {
    return requests;
  }

  /** The transaction-log actor's subscription to RocksDB's flush events, removed at release. */
  public void listenForFlushes(Database.Registration registration) {
    this.flushListener = registration;
  }

  private Pipeline(String name, Database db, PipelineSettings settings, Executor completions, Faults faults, TransactionLogs logs,
      Database.Registration logHook, RequestLedger requests, Database.Registration requestHook) {
    this.name = name;
    this.logs = logs;
    this.logHook = logHook;
    this.requests = requests;
    this.requestHook = requestHook;
    this.db = db;
    this.settings = settings;
    this.completions = completions;
    this.callbacks = new CompletionBatcher(completions);
    this.faults = faults;
    this.lanes = CommitLanes.of(db, settings); // the one place the mode is looked at
    this.queue = lanes.admission;
    this.writes = lanes.writes();
    this.runner = new CommitRunner(db, logs);
  }

  /**
   * Open the storage handle and the transaction logs of {@code path}: replays what the last flush
   * did not hold before any commit can reach the database. Blocking: runs on the lifecycle
   * dispatcher.
   */
  public static Pipeline open(String name, Path path, PipelineSettings settings, Executor completions, Faults faults) {
    Database db = Database.open(path, DatabaseOptions.defaults().withWal(settings.walEnabled()).withSettings(settings.storage()));
    TransactionLogs logs = null;
    try {
      RequestLedger requests = new RequestLedger(db, settings.requestIds());
      logs = TransactionLogs.open(db, settings.log(), settings.replay(), requests, faults);
      requests.countRecords();
      Database.Registration hook = db.addCommitHook(logs);
      Database.Registration requestHook = db.addCommitHook(requests); // after the log's hook
      return new Pipeline(name, db, settings, completions, faults, logs, hook, requests, requestHook);
    } catch (RuntimeException | Error e) {
      if (logs != null) {
        logs.close();
      }
      db.close();
      throw e;
    }
  }

  /**
   * Open {@code path} read-only ({@link Database#openReadOnly}): nothing is replayed, no
   * transaction log is opened (their records a normal open would replay are counted, for the
   * stats), no file is written. Commits are refused at admission with {@link
   * ReadOnlyDatabaseException}. Blocking: runs on the lifecycle dispatcher.
   */
  public static Pipeline openReadOnly(String name, Path path, PipelineSettings settings, Executor completions, Faults faults) {
    Database db = Database.openReadOnly(path,
        DatabaseOptions.defaults().withWal(settings.walEnabled()).withSettings(settings.storage()));
    try {
      RequestLedger requests = new RequestLedger(db, settings.requestIds());
      requests.countRecords();
      TransactionLogs logs = TransactionLogs.readOnly(db, settings.log(), requests, faults);
      Pipeline pipeline = new Pipeline(name, db, settings, completions, faults, logs, () -> { }, requests, () -> { });
      pipeline.unappliedLogRecords = ReplayBacklog.count(db);
      return pipeline;
    } catch (RuntimeException | Error e) {
      db.close();
      throw e;
    }
  }

  public boolean isReadOnly() {
    return db.isReadOnly();
  }

  /**
   * Let a handle's gate admit into this pipeline. A gate registered once the database is closing
   * is closed at once: that handle admits nothing.
   */
  public synchronized void register(AdmissionGate gate) {
    if (closing) {
      gate.close();
    } else {
      gates.add(gate);
    }
  }

  /** A handle closed and drained: its gate no longer counts. */
  public synchronized void unregister(AdmissionGate gate) {
    gates.remove(gate);
  }

  /** Refuse every handle's new commits from now on; completes once every admitted commit completed. */
  public CompletableFuture<Void> closeGates() {
    List<CompletableFuture<Void>> drained = new ArrayList<>();
    synchronized (this) {
      closing = true;
      for (AdmissionGate g : gates) {
        drained.add(g.close());
      }
    }
    return CompletableFuture.allOf(drained.toArray(CompletableFuture[]::new));
  }

  public CommitFuture<CommitResult> commit(Transaction txn, AdmissionGate gate) {
    return commit(txn, gate, null);
  }

  /** Commit into the place {@code ticket} holds (null: a free place, or fail with the full queue). */
  public CommitFuture<CommitResult> commit(Transaction txn, AdmissionGate gate, AdmissionTicket ticket) {
    CommitFuture.OfCommit f = new CommitFuture.OfCommit(callbacks);
    admit(new CommitRequest(txn, f, gate), ticket);
    return f;
  }

  /** A ticket for the next free place of the queue. */
  public AdmissionTicket awaitAdmission(Runnable onGranted) {
    return queue.awaitSpace(onGranted);
  }

  /**
   * Claim the named stores the transaction writes before it is admitted: a store dropped from
   * then on is physically dropped only after this commit ends. A store already dropped fails the
   * commit here, typed, before it takes a place in the queue. {@code attempt}, when not null, is
   * the request id's attempt the commit is (bound to the transaction already); {@code reply} is
   * where the outcome goes ({@link CommitRequest#complete}).
   */
  public void admit(Transaction txn, RequestLedger.Attempt attempt, CommitRequest.Completion reply, AdmissionGate gate) {
    admit(new CommitRequest(txn, attempt, reply, gate), null);
  }

  private void admit(CommitRequest r, AdmissionTicket ticket) {
    if (ticket != null && ticket.queue() != queue) {
      throw new IllegalArgumentException("the admission ticket belongs to another database than " + db.path());
    }
    if (db.isReadOnly()) {
      if (ticket != null) {
        ticket.cancel();
      }
      r.failed(new ReadOnlyDatabaseException(db.path(), "commit")); // nothing is queued: no executor runs for it
      return;
    }
    StoreClaims claims;
    try {
      claims = r.txn.claimStores();
    } catch (RuntimeException e) {
      if (ticket != null) {
        ticket.cancel(); // the held place goes to the next in line
      }
      r.failed(e); // StoreDroppedException, or a transaction that already ended
      return;
    }
    r.claims = claims.size() == 0 ? null : claims; // given back when the outcome is delivered, whichever way it is
    enqueue(r, ticket);
  }

  private void enqueue(CommitRequest r, AdmissionTicket ticket) {
    CommitQueue.Admission a;
    try {
      a = queue.offer(r, ticket);
    } catch (RuntimeException e) {
      r.failed(e); // an injected failure at ADMITTED
      return;
    }
    switch (a) {
      case FULL -> r.failed(new CommitQueueFullException(name, queue.capacity()));
      case CLOSED -> r.failed(new DatabaseClosedException(db.path()));
      case ADMITTED -> {
        if (inline && queue.executors() == 0) {
          drainInline();
        }
      }
    }
  }

  /** No executor thread could be started: run what is queued on the current thread. */
  public void runInline() {
    inline = true;
    drainInline();
  }

  private void drainInline() {
    for (CommitRequest r; (r = queue.poll()) != null; ) {
      runner.execute(r).deliver();
    }
  }

  /**
   * Create a store (see {@link Database#createStore}) on {@code blocking}, unless it is live;
   * completes on the completion executor. RocksDB creates a column family in its write queue, so a
   * write stall holds the creation until it ends: never on the caller's thread (a protocol actor).
   */
  public CommitFuture<Store> createStore(String name, Executor blocking) {
    CommitFuture<Store> f = new CommitFuture<>(completions);
    java.util.Optional<Store> live = db.findStore(name);
    if (live.isPresent()) {
      f.complete(live.get());
      return f;
    }
    try {
      blocking.execute(() -> {
        try {
          db.createStore(name).whenComplete((store, err) -> complete(f, store, err));
        } catch (RuntimeException e) {
          f.completeExceptionally(e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      f.completeExceptionally(new DatabaseClosedException(db.path())); // the actor system is shutting down
    }
    return f;
  }

  /**
   * Drop a store: logical before this returns (the intent is synced on this thread), physical
   * once no admitted commit names it. Completes on the completion executor.
   */
  public CommitFuture<Done> dropStore(String name) {
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

  /** Commits admitted and not yet completed, over every handle. */
  public synchronized long inFlight() {
    long n = 0;
    for (AdmissionGate g : gates) {
      n += g.inFlight();
    }
    return n;
  }

  public PipelineStats stats() {
    db.health(); // looks at RocksDB's error count, so the snapshot's health is current (not on the commit path)
    int executors = 0; // every lane's executors together
    int idle = 0;
    for (CommitQueue lane : lanes.queues()) {
      executors += lane.executorsSpawned();
      idle += lane.idleExecutors();
    }
    return new PipelineStats(queue.depth(), inFlight(), executors, idle,
        queue.admitted.sum(), runner.committed.sum(), runner.conflicts.sum(), runner.failed.sum(), queue.overloaded.sum(),
        retries.sum(), runner.queueWait.getIntervalHistogram(), runner.execution.getIntervalHistogram(), db.stats(),
        logs.stats(), runner.groupSize.getIntervalHistogram(), requests.stats(), db.rocksDbStats(),
        writes == null ? 0 : writes.queue.depth(), unappliedLogRecords);
  }

  /**
   * Release the database once: stop hearing flushes, close the transaction logs (after a final
   * flush), then the storage handle, whose close lets in-flight native calls finish first.
   * Blocking. A failure of either (a final flush that could not be written) is kept for {@link
   * #closeFailure()}: acknowledged commits may be lost, and the closer must hear of it.
   */
  public void release() {
    if (released.compareAndSet(false, true)) {
      Throwable failure = null;
      try {
        Database.Registration r = flushListener;
        if (r != null) {
          r.close();
        }
        requestHook.close();
        logHook.close();
        logs.close();
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
  public Throwable closeFailure() {
    return closeFailure;
  }

  public boolean isReleased() {
    return released.get();
  }
}
