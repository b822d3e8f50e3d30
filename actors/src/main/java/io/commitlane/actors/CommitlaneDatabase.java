package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.TransactionFunction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * A database whose commits run on its own commit executors, off the caller's dispatcher.
 *
 * <pre>{@code
 * CommitlaneDatabase db = CommitlaneDatabase.open(system, Path.of("data/orders"));
 * Transaction txn = db.begin();
 * txn.put(key, value);
 * db.commit(txn).thenAccept(result -> ...);   // runs on the completion dispatcher
 * }</pre>
 *
 * <p><b>Threads.</b> {@link #commit(Transaction)} admits the commit into the database's bounded
 * queue on the calling thread and returns at once; an executor thread ({@code
 * commitlane-commit-<db>-<n>}) validates and writes it. The returned stage is completed by that
 * thread, but every callback attached to it runs on the completion dispatcher ({@code
 * commitlane.completion-dispatcher}, Pekko's default dispatcher unless configured), never on a
 * commit thread and never on {@code ForkJoinPool.commonPool()}. Reads ({@link Transaction#get})
 * run on the caller's thread. Actors get typed replies instead: {@link #commit(Transaction,
 * ActorRef)}.
 */
public final class CommitlaneDatabase implements AutoCloseable {
  private static final AtomicLong INSTANCES = new AtomicLong();
  private static final Duration CLOSE_TIMEOUT = Duration.ofMinutes(1);

  private final ActorSystem<?> system;
  private final Pipeline pipeline;
  private final ActorRef<DatabaseActor.Command> supervisor;

  private CommitlaneDatabase(ActorSystem<?> system, Pipeline pipeline, ActorRef<DatabaseActor.Command> supervisor) {
    this.system = system;
    this.pipeline = pipeline;
    this.supervisor = supervisor;
  }

  /** Open with the {@code commitlane} settings of the actor system's config. */
  public static CommitlaneDatabase open(ActorSystem<?> system, Path path) {
    return open(system, path, PipelineSettings.fromConfig(system.settings().config()));
  }

  public static CommitlaneDatabase open(ActorSystem<?> system, Path path, PipelineSettings settings) {
    return open(system, path, settings, new Faults());
  }

  /** Open with fault points armed by a test (see the testkit). */
  public static CommitlaneDatabase open(ActorSystem<?> system, Path path, PipelineSettings settings, Faults faults) {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(settings, "settings");
    Database db = Database.open(path, DatabaseOptions.defaults().withWal(settings.walEnabled()).withSettings(settings.storage()));
    boolean logsAcquired = false;
    try {
      // Replays what the last flush did not hold before any commit can reach the database.
      TransactionLogs logs = LogRegistry.acquire(db, settings);
      logsAcquired = true;
      Executor completions = system.dispatchers().lookup(DispatcherSelector.fromConfig(settings.completionDispatcher()));
      String name = nameOf(path);
      long instance = INSTANCES.incrementAndGet();
      Pipeline pipeline = new Pipeline(name, db, settings, completions, faults, logs);
      ActorRef<TransactionLogActor.Command> logActor = system.systemActorOf(
          TransactionLogActor.create(logs, settings.purgeInterval(), pipeline.callbacks), "commitlane-" + name + "-" + instance + "-txlog",
          DispatcherSelector.fromConfig("commitlane.log-dispatcher"));
      pipeline.logActor = logActor;
      pipeline.flushListener = db.addFlushListener(seq -> logActor.tell(new TransactionLogActor.FlushCompleted(seq)));
      ActorRef<DatabaseActor.Command> supervisor = system.systemActorOf(DatabaseActor.create(pipeline),
          "commitlane-" + name + "-" + instance, Props.empty());
      pipeline.queue.onGrowth(() -> supervisor.tell(DatabaseActor.Grow.INSTANCE));
      if (settings.mode() == PipelineMode.THREADS) {
        pipeline.queue.requestGrowth(); // the first executor starts at open, not at the first commit
      }
      return new CommitlaneDatabase(system, pipeline, supervisor);
    } catch (RuntimeException e) {
      if (logsAcquired) {
        LogRegistry.release(db);
      }
      db.close();
      throw e;
    }
  }

  /** The storage handle: reads, non-transactional writes, stores, stage listeners. */
  public Database storage() {
    return pipeline.db;
  }

  public Path path() {
    return pipeline.db.path();
  }

  public PipelineSettings settings() {
    return pipeline.settings;
  }

  public Transaction begin() {
    return pipeline.db.begin();
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
    return pipeline.commit(Objects.requireNonNull(txn, "txn"));
  }

  /** Commit on the database's executors and reply to an actor with exactly one {@link CommitReply}. */
  public void commit(Transaction txn, ActorRef<CommitReply> replyTo) {
    pipeline.commit(Objects.requireNonNull(txn, "txn"), Objects.requireNonNull(replyTo, "replyTo"));
  }

  /**
   * Commit on the calling thread (blocks it): for plain threads that want no hand-off. With
   * {@code fsync} log durability it returns once the record is synced. (A bare {@link
   * Transaction#commitSync()} does not wait for that.)
   */
  public CommitResult commitSync(Transaction txn) {
    CommitResult r = txn.commitSync();
    java.util.concurrent.CompletableFuture<Void> durable = TransactionLogs.whenDurable(r.attachment());
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
   * io.commitlane.storage.InvalidStoreNameException}. Completes on the completion dispatcher.
   */
  public CompletionStage<Store> createStore(String name) {
    return pipeline.createStore(name);
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
   * The named transaction log of this database (created on first use), for readers, stats and
   * purge. Commits write to it through {@link Transaction#useLog}.
   */
  public io.commitlane.txlog.TransactionLog transactionLog(String name) {
    return pipeline.logs.logFor(name);
  }

  /** Transactions replayed into RocksDB from each log when this path was opened. */
  public java.util.Map<String, Long> replayedAtOpen() {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    pipeline.logs.replayed().forEach((log, stats) -> out.put(log, stats.transactions()));
    return java.util.Collections.unmodifiableMap(out);
  }

  /**
   * What crash replay did with each log when this path was opened: transactions applied, those
   * RocksDB already held, those not restored because they come after damage, writes left out
   * because their store was dropped before the crash, and the damage found. Empty for a path whose
   * logs were already open in this process (the first open replayed).
   */
  public java.util.Map<String, ReplayStats> replayStatsAtOpen() {
    return pipeline.logs.replayed();
  }

  /** {@link #transactAsync(int, TransactionFunction)} with 3 retries. */
  public <T> CompletionStage<T> transactAsync(TransactionFunction<T> body) {
    return transactAsync(Database.DEFAULT_MAX_RETRIES, body);
  }

  /**
   * Run {@code body} in a transaction and commit it asynchronously; on conflict run it again on a
   * fresh transaction, up to {@code maxRetries} more times. The first attempt's body runs on the
   * calling thread, retries on the completion dispatcher.
   */
  public <T> CompletionStage<T> transactAsync(int maxRetries, TransactionFunction<T> body) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0: " + maxRetries);
    }
    Objects.requireNonNull(body, "body");
    CommitFuture<T> result = new CommitFuture<>(pipeline.completions);
    attempt(1, maxRetries, body, result);
    return result;
  }

  private <T> void attempt(int attempt, int maxRetries, TransactionFunction<T> body, CommitFuture<T> result) {
    T value;
    Transaction txn;
    try {
      txn = begin();
      try {
        value = body.apply(txn);
      } catch (RuntimeException | Error e) {
        txn.abort();
        throw e;
      }
    } catch (Throwable e) {
      result.completeExceptionally(e);
      return;
    }
    pipeline.commit(txn).whenComplete((r, err) -> {
      Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
      if (cause == null) {
        result.complete(value);
      } else if (cause instanceof ConflictException c && attempt <= maxRetries) {
        pipeline.retries.increment();
        attempt(attempt + 1, maxRetries, body, result);
      } else if (cause instanceof ConflictException c) {
        result.completeExceptionally(attempt == 1 ? c : new ConflictException(c.transactionId(), attempt));
      } else {
        result.completeExceptionally(cause);
      }
    });
  }

  /** The supervisor, for actors that send {@link DatabaseActor.Commit} or {@link DatabaseActor.GetStats}. */
  public ActorRef<DatabaseActor.Command> ref() {
    return supervisor;
  }

  /** A snapshot of the pipeline's counters and latency histograms (since the previous snapshot). */
  public PipelineStats stats() {
    return pipeline.stats();
  }

  /**
   * Drain admitted commits, then refuse new ones with {@link
   * io.commitlane.storage.DatabaseClosedException}, stop the executors and release this handle.
   * Other handles of the same path keep working. Completes on the completion dispatcher; fails if
   * the last handle's final flush (or its logs' final sync) failed, since acknowledged commits may
   * then be lost.
   */
  public CompletionStage<Done> closeAsync() {
    CommitFuture<Done> done = new CommitFuture<>(pipeline.completions);
    // Refuse new commits from the moment close is called, not from when the supervisor hears of it.
    pipeline.gate.close();
    if (system.whenTerminated().isCompleted() || pipeline.isReleased()) {
      pipeline.release(); // the supervisor is gone with its system: nothing else will
      completeClose(done, null);
      return done;
    }
    AskPattern.<DatabaseActor.Command, Done>ask(supervisor, DatabaseActor.Close::new, CLOSE_TIMEOUT, system.scheduler())
        .whenCompleteAsync((ok, err) -> {
          if (err != null) {
            pipeline.release();
          }
          completeClose(done, err);
        }, pipeline.completions);
    return done;
  }

  /** A close that released everything but whose final flush failed fails too: acknowledged commits may be lost. */
  private void completeClose(CommitFuture<Done> done, Throwable err) {
    Throwable failure = err != null ? err : pipeline.closeFailure();
    if (failure == null) {
      done.complete(Done.getInstance());
    } else {
      done.completeExceptionally(failure);
    }
  }

  /** {@link #closeAsync()} and wait for it (at most a minute). */
  @Override
  public void close() {
    try {
      closeAsync().toCompletableFuture().get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      throw new IllegalStateException("closing " + path() + " failed", e.getCause() != null ? e.getCause() : e);
    }
  }

  private static String nameOf(Path path) {
    Path file = path.toAbsolutePath().normalize().getFileName();
    String name = file == null ? "root" : file.toString().replaceAll("[^A-Za-z0-9_-]", "_");
    return name.isEmpty() ? "db" : name;
  }
}
