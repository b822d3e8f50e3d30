package io.commitlane.bench.harness;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.PipelineStats;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Runs commitlane's asynchronous {@code commit(txn)} under one load on a fresh database. Each
 * worker is a plain thread that keeps up to {@code inFlight} commits in flight: a semaphore it
 * acquires before submitting and the completion callback (on the completion dispatcher) releases,
 * so no pool thread ever blocks waiting for a commit. Keys, values, warm-up and window are as in
 * {@link ContentionRunner}; latency runs from {@code begin} to the completion callback, like the
 * synchronous rows' begin-to-return.
 *
 * <p>{@link #blockingOn} makes the blocking-commit peer of the pipeline (the {@code legacy} rows):
 * each commit is {@code commitSync(txn)} run as a task on an executor the benchmark names (the
 * default dispatcher), so the blocking commit occupies one of its threads for as long as it takes.
 */
public final class AsyncContentionRunner {
  private final ActorSystem<?> system;
  private final int keySpace;
  private final CommitValues values;
  private final double warmupSeconds;
  private final double seconds;
  private final boolean readFirst;
  /** Where each commit runs as a blocking {@code commitSync}; null: {@code commit(txn)} through the pipeline. */
  private final Executor blockingOn;

  public AsyncContentionRunner(ActorSystem<?> system, int keySpace, int valueSize, double warmupSeconds, double seconds) {
    this(system, keySpace, valueSize, warmupSeconds, seconds, false);
  }

  /** With {@code readFirst}, every transaction first reads its keys (tracked) before it writes them. */
  public AsyncContentionRunner(ActorSystem<?> system, int keySpace, int valueSize, double warmupSeconds, double seconds, boolean readFirst) {
    this(system, keySpace, CommitValues.fixed(valueSize), warmupSeconds, seconds, readFirst);
  }

  /** Each commit writes its worker's next of {@code values}. */
  public AsyncContentionRunner(ActorSystem<?> system, int keySpace, CommitValues values, double warmupSeconds, double seconds, boolean readFirst) {
    this.system = system;
    this.keySpace = keySpace;
    this.values = values;
    this.warmupSeconds = warmupSeconds;
    this.seconds = seconds;
    this.readFirst = readFirst;
    this.blockingOn = null;
  }

  private AsyncContentionRunner(AsyncContentionRunner r, Executor blockingOn) {
    this.system = r.system;
    this.keySpace = r.keySpace;
    this.values = r.values;
    this.warmupSeconds = r.warmupSeconds;
    this.seconds = r.seconds;
    this.readFirst = r.readFirst;
    this.blockingOn = blockingOn;
  }

  /**
   * This runner with every commit run as a blocking {@code commitSync(txn)} task on {@code
   * executor} instead of through the pipeline: blocking commits as a peer, on a dispatcher the
   * benchmark owns. Workers still keep {@code inFlight} commits in flight each.
   */
  public AsyncContentionRunner blockingOn(Executor executor) {
    return new AsyncContentionRunner(this, executor);
  }

  public PipelineSample run(PipelineSettings settings, Load load, int inFlight, boolean log, Path dir, WindowListener listener) throws Exception {
    Files.createDirectories(dir);
    try {
      CommitlaneDatabase db = Commitlane.get(system).open(dir, settings);
      try {
        return measure(db, load, inFlight, log, listener);
      } finally {
        db.close();
      }
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }

  /** One warm-up and window on a database the caller opened (and closes), telling {@code listener} when the window opens and closes. */
  public PipelineSample measure(CommitlaneDatabase db, Load load, int inFlight, boolean log, WindowListener listener) throws Exception {
    CommitTally tally = new CommitTally();
    CountDownLatch ready = new CountDownLatch(load.threads());
    List<Thread> workers = tally.startInFlightWorkers(load.threads(), "bench-async-", ready, inFlight, values,
        (random, value, done) -> commit(db, random, value, load.keys(), log, tally, done));
    try {
      CommitTally.Window window = tally.measure(ready, warmupSeconds, seconds, listener,
          db::stats); // db.stats() starts the pipeline's interval histograms at the window's edge
      PipelineStats stats = db.stats();
      Histogram queueWait = stats.queueWait();
      return new PipelineSample(window.measurement(), stats.executorsStarted(),
          queueWait.getTotalCount() == 0 ? Double.NaN : queueWait.getValueAtPercentile(50));
    } finally {
      tally.stop(workers, (blockingOn != null ? "blocking commits" : "commitlane " + db.settings().mode().settingName()) + " under " + load);
    }
  }

  private void commit(CommitlaneDatabase db, SplittableRandom random, byte[] value, int keyCount, boolean log, CommitTally tally,
      Runnable done) {
    byte[][] keys = new byte[keyCount][]; // fresh arrays: the transaction keeps them until it completes
    for (int i = 0; i < keys.length; i++) {
      keys[i] = ByteBuffer.allocate(8).putLong(random.nextInt(keySpace)).array();
    }
    long start = System.nanoTime();
    Transaction txn = BenchTransactions.begin(db, keys, value, log, readFirst);
    CompletionStage<CommitResult> commit = blockingOn == null ? db.commit(txn) : CompletableFuture.supplyAsync(() -> db.commitSync(txn), blockingOn);
    commit.whenComplete((result, error) -> {
      tally.record(System.nanoTime() - start, error);
      done.run();
    });
  }
}
