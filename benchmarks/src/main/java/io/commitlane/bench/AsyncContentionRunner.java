package io.commitlane.bench;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.PipelineStats;
import io.commitlane.storage.ConflictException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Runs commitlane's asynchronous {@code commit(txn)} under one load on a fresh database. Each
 * worker is a plain thread that keeps up to {@code inFlight} commits in flight: a semaphore it
 * acquires before submitting and the completion callback (on the completion dispatcher) releases,
 * so no pool thread ever blocks waiting for a commit. Keys, values, warm-up and window are as in
 * {@link ContentionRunner}; latency runs from {@code begin} to the completion callback, like the
 * synchronous rows' begin-to-return.
 */
final class AsyncContentionRunner {
  private static final long DRAIN_TIMEOUT_SECONDS = 60;

  private final ActorSystem<?> system;
  private final int keySpace;
  private final int valueSize;
  private final double warmupSeconds;
  private final double seconds;
  private final boolean readFirst;

  AsyncContentionRunner(ActorSystem<?> system, int keySpace, int valueSize, double warmupSeconds, double seconds) {
    this(system, keySpace, valueSize, warmupSeconds, seconds, false);
  }

  /** With {@code readFirst}, every transaction first reads its keys (tracked) before it writes them. */
  AsyncContentionRunner(ActorSystem<?> system, int keySpace, int valueSize, double warmupSeconds, double seconds, boolean readFirst) {
    this.system = system;
    this.keySpace = keySpace;
    this.valueSize = valueSize;
    this.warmupSeconds = warmupSeconds;
    this.seconds = seconds;
    this.readFirst = readFirst;
  }

  PipelineSample run(PipelineSettings settings, Load load, int inFlight, boolean log, Path dir, WindowListener listener) throws Exception {
    Files.createDirectories(dir);
    try {
      CommitlaneDatabase db = CommitlaneDatabase.open(system, dir, settings);
      try {
        return measure(db, load, inFlight, log, listener);
      } finally {
        db.close();
      }
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }

  private PipelineSample measure(CommitlaneDatabase db, Load load, int inFlight, boolean log, WindowListener listener) throws Exception {
    Tally tally = new Tally();
    CountDownLatch ready = new CountDownLatch(load.threads());
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < load.threads(); t++) {
      long seed = 0x5EED + t;
      workers.add(new Thread(() -> {
        try {
          work(db, seed, load.keys(), inFlight, log, tally, ready);
        } catch (Throwable e) {
          tally.errors.add(e);
        }
      }, "bench-async-" + t));
    }
    workers.forEach(Thread::start);
    try {
      ready.await();
      ContentionRunner.pause(warmupSeconds);
      long c0 = tally.commits.sum();
      long x0 = tally.conflicts.sum();
      tally.latency.getIntervalHistogram();
      db.stats(); // starts the pipeline's interval histograms at the window's edge
      listener.windowOpened();
      long t0 = System.nanoTime();
      ContentionRunner.pause(seconds);
      long c1 = tally.commits.sum();
      long x1 = tally.conflicts.sum();
      Histogram h = tally.latency.getIntervalHistogram();
      PipelineStats stats = db.stats();
      double elapsed = (System.nanoTime() - t0) / 1e9;
      listener.windowClosed();
      Measurement m = new Measurement(c1 - c0, x1 - x0, elapsed, h.getValueAtPercentile(50), h.getValueAtPercentile(99));
      Histogram queueWait = stats.queueWait();
      return new PipelineSample(m, stats.executorsStarted(),
          queueWait.getTotalCount() == 0 ? Double.NaN : queueWait.getValueAtPercentile(50));
    } finally {
      tally.running = false;
      for (Thread t : workers) {
        t.join();
      }
      if (!tally.errors.isEmpty()) {
        throw new IllegalStateException("commitlane " + db.settings().mode().settingName() + " failed under " + load, tally.errors.get(0));
      }
    }
  }

  private void work(CommitlaneDatabase db, long seed, int keyCount, int inFlight, boolean log, Tally tally, CountDownLatch ready)
      throws InterruptedException {
    SplittableRandom random = new SplittableRandom(seed);
    byte[] value = new byte[valueSize];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) random.nextInt();
    }
    Semaphore slots = new Semaphore(inFlight);
    ready.countDown();
    while (tally.running) {
      slots.acquire();
      byte[][] keys = new byte[keyCount][]; // fresh arrays: the transaction keeps them until it completes
      for (int i = 0; i < keys.length; i++) {
        keys[i] = ByteBuffer.allocate(8).putLong(random.nextInt(keySpace)).array();
      }
      long start = System.nanoTime();
      db.commit(BenchTransactions.begin(db, keys, value, log, readFirst)).whenComplete((result, error) -> {
        tally.record(System.nanoTime() - start, error);
        slots.release();
      });
    }
    if (!slots.tryAcquire(inFlight, DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException("commits still in flight " + DRAIN_TIMEOUT_SECONDS + " s after the run ended");
    }
  }

  /** What the completion callbacks count; they run on several dispatcher threads at once. */
  private static final class Tally {
    final LongAdder commits = new LongAdder();
    final LongAdder conflicts = new LongAdder();
    final Recorder latency = new Recorder(3);
    final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    volatile boolean running = true;

    void record(long nanos, Throwable error) {
      latency.recordValue(nanos);
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause == null) {
        commits.increment();
      } else if (cause instanceof ConflictException) {
        conflicts.increment();
      } else {
        errors.add(cause);
      }
    }
  }
}
