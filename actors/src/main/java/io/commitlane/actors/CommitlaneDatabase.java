package io.commitlane.actors;

import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.internal.lifecycle.DatabaseCopies;
import io.commitlane.actors.internal.lifecycle.OpenDatabase;
import io.commitlane.actors.internal.lifecycle.StoreMaintenance;
import io.commitlane.actors.internal.pipeline.AdmissionGate;
import io.commitlane.actors.internal.pipeline.CommitFuture;
import io.commitlane.actors.internal.pipeline.CommitRequest;
import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.actors.internal.pipeline.Pipeline;
import io.commitlane.actors.internal.pipeline.RetriedTransaction;
import io.commitlane.actors.internal.protocol.RequestHandler;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.TransactionFunction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A handle of an open database, for plain Java callers: commits run on the database's own commit
 * executors, off the caller's dispatcher. Every handle of one path in one actor system shares the
 * same database (its supervisor actor, queue, executors and logs); each handle closes on its own.
 *
 * <pre>{@code
 * CommitlaneDatabase db = Commitlane.get(system).open(Path.of("data/orders"));
 * Transaction txn = db.begin();
 * txn.put(key, value);
 * db.commit(txn).thenAccept(result -> ...);   // runs on the completion dispatcher
 * }</pre>
 *
 * <p><b>Threads.</b> {@link #commit(Transaction)} admits the commit into the database's bounded
 * queue on the calling thread and returns at once (no actor hop); an executor thread ({@code
 * commitlane-commit-<db>-<n>}) validates and writes it. The returned stage is completed by that
 * thread, but every callback attached to it runs on the completion dispatcher ({@code
 * commitlane.completion-dispatcher}, Pekko's default dispatcher unless configured), never on a
 * commit thread and never on {@code ForkJoinPool.commonPool()}. Reads ({@link Transaction#get})
 * run on the caller's thread. Actors use the database's reference instead ({@link #ref()}, {@link
 * DatabaseProtocol}), or {@link #commit(Transaction, long, ActorRef)} for a transaction they built.
 */
public final class CommitlaneDatabase implements AutoCloseable {
  /** How long {@link #close()} waits for the drain and the release. */
  public static final Duration CLOSE_TIMEOUT = Duration.ofMinutes(1);

  private final OpenDatabase database;
  private final Pipeline pipeline;
  /** Counts this handle's admitted commits; closing it drains them. */
  private final AdmissionGate gate = new AdmissionGate();
  private final StoreMaintenance maintenance;
  private final DatabaseCopies copies;
  private final AtomicReference<CompletableFuture<Done>> closed = new AtomicReference<>();

  @io.commitlane.annotation.InternalApi
  public CommitlaneDatabase(OpenDatabase database, Pipeline pipeline) {
    this.database = database;
    this.pipeline = pipeline;
    this.maintenance = new StoreMaintenance(this, pipeline);
    this.copies = new DatabaseCopies(pipeline, database.databases.lifecycle());
    pipeline.register(gate);
  }

  /**
   * Open with fault points armed by this module's tests; they apply if this open starts the
   * database. Everyone else opens through {@link Commitlane#open(Path, PipelineSettings)}.
   */
  static CommitlaneDatabase open(ActorSystem<?> system, Path path, PipelineSettings settings, Faults faults) {
    return Commitlane.await(Commitlane.get(system).openAsync(path, settings, faults));
  }

  /** Whether this database was opened read-only ({@link Commitlane#openReadOnly}). */
  public boolean isReadOnly() {
    return pipeline.isReadOnly();
  }

  /**
   * The database's reference: an actor that speaks {@link DatabaseProtocol}. Shared by every
   * handle of the path; it answers every request, also once the database has closed ({@link
   * DatabaseProtocol.FailureReason#DATABASE_CLOSED}).
   */
  public ActorRef<DatabaseProtocol.Request> ref() {
    return database.endpoint();
  }

  /** The storage handle: reads, non-transactional writes, stores, stage listeners. Shared: do not close it. */
  public Database storage() {
    return pipeline.db();
  }

  public Path path() {
    return pipeline.db().path();
  }

  public PipelineSettings settings() {
    return pipeline.settings();
  }

  public Transaction begin() {
    return pipeline.db().begin();
  }

  /**
   * Commit on the database's executors. The stage fails with {@link ConflictException}
   * (retryable), {@link CommitQueueFullException} (retryable, queue full: nothing admitted),
   * {@link io.commitlane.storage.DatabaseClosedException}, {@link
   * io.commitlane.storage.StoreDroppedException} (a store it writes was dropped before this call;
   * nothing was admitted), or the storage/log failure. The commit claims the named stores it
   * writes here, so a store dropped after this call waits for it. Hand the transaction over: do
   * not use it after this call.
   */
  public CompletionStage<CommitResult> commit(Transaction txn) {
    return pipeline.commit(Objects.requireNonNull(txn, "txn"), gate);
  }

  /**
   * Wait for room in the commit queue instead of failing with {@link CommitQueueFullException}:
   * join the database's line of waiters (first come, first served; shared by every handle and
   * stream of the path). Once a place is held for the ticket, {@code onGranted} runs, on the
   * thread that freed it (maybe the caller, before this returns): it must only hand the news over.
   * Then build the transaction and {@link #commit(Transaction, AdmissionTicket)} it, or {@link
   * AdmissionTicket#cancel()} to give the place back. Nothing polls: the place is granted as soon
   * as a commit leaves the queue. The stream stages wait this way.
   */
  public AdmissionTicket awaitAdmission(Runnable onGranted) {
    return pipeline.awaitAdmission(Objects.requireNonNull(onGranted, "onGranted"));
  }

  /**
   * {@link #commit(Transaction)} into the place a granted {@code ticket} holds: never refused for
   * a full queue. The ticket is used up (also when the commit fails before it is admitted). Fails
   * with {@link IllegalStateException} if the ticket is not granted yet or was already used.
   */
  public CompletionStage<CommitResult> commit(Transaction txn, AdmissionTicket ticket) {
    return pipeline.commit(Objects.requireNonNull(txn, "txn"), gate, Objects.requireNonNull(ticket, "ticket"));
  }

  /**
   * Commit on the database's executors and tell {@code replyTo} exactly one {@link WriteReply}
   * carrying {@code correlation}: {@link DatabaseProtocol.Committed}, {@link
   * DatabaseProtocol.Conflicted} or {@link DatabaseProtocol.Failed}. The reply is told by the
   * thread that completed the commit (no callback hop).
   */
  public void commit(Transaction txn, long correlation, ActorRef<WriteReply> replyTo) {
    Objects.requireNonNull(txn, "txn");
    Objects.requireNonNull(replyTo, "replyTo");
    admit(txn, null, RequestHandler.replying(correlation, replyTo, 0, 1));
  }

  /**
   * Admit through this handle's gate; {@code reply} runs on the thread that completes the commit,
   * after the commit's request-id {@code attempt} (or null) is settled.
   */
  @io.commitlane.annotation.InternalApi
  public void admit(Transaction txn, io.commitlane.actors.internal.protocol.RequestLedger.Attempt attempt,
      CommitRequest.Completion reply) {
    pipeline.admit(txn, attempt, reply, gate);
  }

  /**
   * Commit on the calling thread (blocks it): for plain threads that want no hand-off. With
   * {@code fsync} log durability it returns once the record is synced. (A bare {@link
   * Transaction#commitSync()} does not wait for that.)
   *
   * @throws io.commitlane.storage.NotDurableException if the commit was written but its record
   *     could not be synced (readers see it; a machine crash may lose it)
   */
  public CommitResult commitSync(Transaction txn) {
    CommitResult r = txn.commitSync();
    CompletableFuture<Void> durable = pipeline.logs().whenDurable(r);
    if (durable != null) {
      try {
        durable.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException re ? re : e;
      }
    }
    return r;
  }

  /**
   * Create the named store, or get it if it is live. If an earlier store of that name is still
   * being dropped (commits admitted before its drop still run), the stage completes once that
   * drop finished and the new, empty store exists. Fails with {@link
   * io.commitlane.storage.InvalidStoreNameException}. Completes on the completion dispatcher. A new
   * store is created on {@code commitlane.lifecycle-dispatcher}, never on the caller's thread:
   * RocksDB creates it in its write queue, so during a write stall it waits for the stall to end.
   */
  public CompletionStage<Store> createStore(String name) {
    return pipeline.createStore(name, database.databases.lifecycle());
  }

  /**
   * Drop the named store. The drop is logical when this returns: its intent is synced to disk on
   * the calling thread (a crash from now on cannot bring the store back), and new transactions,
   * commits and reads on it fail with {@link io.commitlane.storage.StoreDroppedException}.
   * Commits admitted before run to their end and keep what they were told. The stage completes,
   * on the completion dispatcher, once the last of them ended and the column family is dropped.
   * Fails with {@link io.commitlane.storage.UnknownStoreException} or {@link
   * io.commitlane.storage.InvalidStoreNameException} ({@code default} cannot be dropped), and
   * then nothing was changed.
   */
  public CompletionStage<Done> dropStore(String name) {
    return pipeline.dropStore(name);
  }

  /**
   * Compact the keys of {@code range} (its store, else the default store) on a thread of its own;
   * the stage completes on the completion dispatcher when RocksDB finished. With {@code bottommost}
   * the last level is rewritten too (reclaims the space of cleared keys). Commits go on meanwhile;
   * closing waits for a running compaction. See {@link Database#compact}.
   */
  public CompletionStage<Done> compactAsync(io.commitlane.storage.KeyRange range, boolean bottommost) {
    return maintenance.compact(Objects.requireNonNull(range, "range"), bottommost);
  }

  /**
   * Remove every key of {@code range} (a store: {@code KeyRange.all().in(store)}) as one
   * transaction, serializable with concurrent commits, on a thread of its own; completes with the
   * number of keys removed. See {@link io.commitlane.storage.RangeClear} for what concurrent commits
   * and readers see; {@code RangeClear.of(range).logged(name)} also logs the deletes.
   */
  public CompletionStage<Long> clearAsync(io.commitlane.storage.RangeClear clear) {
    return maintenance.clear(Objects.requireNonNull(clear, "clear"));
  }

  /**
   * The named transaction log of this database, to read, follow, inspect and purge. A log is
   * created by the first commit that writes to it ({@link Transaction#useLog}); reading creates
   * nothing, so a name the database has no log of throws {@link UnknownLogException}. The view
   * cannot append. A read-only handle opens no log: it throws {@link
   * io.commitlane.storage.ReadOnlyDatabaseException}.
   */
  public io.commitlane.txlog.LogView transactionLog(String name) {
    return pipeline.logs().existing(java.util.Objects.requireNonNull(name, "name"));
  }

  /**
   * Create the named transaction log if the database does not have it yet, and return it: for a
   * consumer that follows a log before the first commit that writes to it would create it. The
   * only way besides a commit to create a log; an empty log costs a directory and a lock file and
   * is carried by checkpoints and backups like any other.
   */
  public io.commitlane.txlog.LogView createTransactionLog(String name) {
    return pipeline.logs().logFor(java.util.Objects.requireNonNull(name, "name"));
  }

  /**
   * The named transaction log itself, writable. INTERNAL API: for commitlane's own modules and
   * tests (the testkit drives flush events with it); a record appended from outside a commit breaks
   * "log order agrees with commit order".
   */
  @io.commitlane.annotation.InternalApi
  public io.commitlane.txlog.TransactionLog internalTransactionLog(String name) {
    return pipeline.logs().logFor(name);
  }

  /**
   * Take a checkpoint into {@code target} (a new directory) while commits go on: RocksDB's files
   * (hard-linked where possible), commitlane's own records, the store-drop records and every
   * transaction log, copied after the data with their flushed positions held, so the logs never
   * run behind it. Opened, the copy holds a prefix of commit order containing every commit
   * acknowledged before this call (its open replays what the logs hold beyond the data). The
   * copy runs on {@code commitlane.lifecycle-dispatcher}, never on the caller's thread; the stage
   * completes on the completion dispatcher, or fails with {@link
   * io.commitlane.storage.CheckpointException} (nothing partial is left).
   */
  public CompletionStage<io.commitlane.storage.CheckpointInfo> checkpoint(Path target) {
    return copies.checkpoint(Objects.requireNonNull(target, "target"));
  }

  /** {@link #backup(io.commitlane.storage.BackupStore, io.commitlane.storage.BackupProgress)} without progress reports. */
  public CompletableFuture<io.commitlane.storage.BackupInfo> backup(io.commitlane.storage.BackupStore store) {
    return backup(store, io.commitlane.storage.BackupProgress.NONE);
  }

  /**
   * Back up this database into {@code store} while commits go on (see {@link
   * io.commitlane.storage.BackupStore#create}): it runs on {@code commitlane.lifecycle-dispatcher},
   * never on the caller's thread, reports to {@code progress} on that thread, and completes on the
   * completion dispatcher. {@code cancel} the returned future to stop it at its next step: the
   * future is cancelled once the backup has stopped and removed what it wrote (so a backup started
   * after that is not refused as a second writer). Fails with {@link
   * io.commitlane.storage.BackupException} subtypes.
   */
  public CompletableFuture<io.commitlane.storage.BackupInfo> backup(io.commitlane.storage.BackupStore store,
      io.commitlane.storage.BackupProgress progress) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(progress, "progress");
    return copies.backup(() -> store, progress);
  }

  /** A backup into {@code BackupStore.at(directory)}, looked at on the lifecycle dispatcher too (the protocol's {@code Backup}). */
  @io.commitlane.annotation.InternalApi
  public CompletableFuture<io.commitlane.storage.BackupInfo> backup(Path directory) {
    Objects.requireNonNull(directory, "directory");
    return copies.backup(() -> io.commitlane.storage.BackupStore.at(directory), io.commitlane.storage.BackupProgress.NONE);
  }

  /** Transactions replayed into RocksDB from each log when this path was opened. */
  public java.util.Map<String, Long> replayedAtOpen() {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    pipeline.logs().replayed().forEach((log, stats) -> out.put(log, stats.transactions()));
    return java.util.Collections.unmodifiableMap(out);
  }

  /**
   * What crash replay did with each log when this path was opened: transactions applied, those
   * RocksDB already held, those not restored because they come after damage, writes left out
   * because their store was dropped before the crash, and the damage found. Empty for a path whose
   * logs were already open in this process (the first open replayed).
   */
  public java.util.Map<String, ReplayStats> replayStatsAtOpen() {
    return pipeline.logs().replayed();
  }

  /** {@link #transactAsync(int, TransactionFunction)} with 3 retries. */
  public <T> CompletionStage<T> transactAsync(TransactionFunction<T> body) {
    return transactAsync(Database.DEFAULT_MAX_RETRIES, body);
  }

  /** {@link #transactAsync(Retry, TransactionFunction)} with {@code maxRetries} retries and no backoff. */
  public <T> CompletionStage<T> transactAsync(int maxRetries, TransactionFunction<T> body) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0: " + maxRetries);
    }
    return transactAsync(Retry.onConflict(maxRetries + 1, Backoff.none()), body);
  }

  /**
   * Run {@code body} in a transaction and commit it asynchronously; on conflict run it again on a
   * fresh transaction after the retry's backoff (a timer: nothing waits), up to its attempts. The
   * first attempt's body runs on the calling thread, retries on the completion dispatcher. A
   * conflict that used up the attempts fails the stage with a {@link ConflictException} whose
   * {@code attempts()} says how many were made.
   */
  public <T> CompletionStage<T> transactAsync(Retry retry, TransactionFunction<T> body) {
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(body, "body");
    return new RetriedTransaction<>(pipeline, gate, this::begin, database.system().scheduler(), retry, body).start();
  }

  /** A snapshot of the pipeline's counters and latency histograms (since the previous snapshot). */
  public PipelineStats stats() {
    return pipeline.stats();
  }

  /**
   * Drain this handle's admitted commits, then refuse its new ones with {@link
   * io.commitlane.storage.DatabaseClosedException} and release it. Other handles of the same path
   * keep working; the last handle's close stops the database's supervisor, its executors and its
   * logs, and completes once the database is released. Never blocks the caller; completes on the
   * completion dispatcher. Idempotent. Fails if the last handle's final flush (or its logs' final
   * sync) failed, since acknowledged commits may then be lost.
   */
  public CompletionStage<Done> closeAsync() {
    CompletableFuture<Done> done = new CommitFuture<>(pipeline.completions());
    if (!closed.compareAndSet(null, done)) {
      return closed.get();
    }
    Executor completions = pipeline.completions();
    // Refuse new commits from the moment close is called; release once the admitted ones ended.
    CompletableFuture<Void> drained = gate.close();
    if (database.system().whenTerminated().isCompleted() || pipeline.isReleased()) {
      drained = CompletableFuture.completedFuture(null); // nothing runs them any more: the supervisor failed what was left
    }
    drained.whenComplete((v, e) -> {
      pipeline.unregister(gate);
      database.release().whenCompleteAsync((ok, err) -> {
        if (err == null) {
          done.complete(Done.getInstance());
        } else {
          done.completeExceptionally(err);
        }
      }, completions);
    });
    return done;
  }

  /**
   * {@link #closeAsync()} and wait for it: at most {@link #CLOSE_TIMEOUT} (one minute), then an
   * {@link IllegalStateException}. For plain Java callers: an actor calls {@link #closeAsync()},
   * never this (it would hold a dispatcher thread for the whole drain).
   */
  @Override
  public void close() {
    try {
      closeAsync().toCompletableFuture().get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("closing " + path() + " failed", e.getCause() != null ? e.getCause() : e);
    }
  }

  @io.commitlane.annotation.InternalApi
  public Pipeline pipeline() {
    return pipeline;
  }

  @io.commitlane.annotation.InternalApi
  public Executor completions() {
    return pipeline.completions();
  }
}
