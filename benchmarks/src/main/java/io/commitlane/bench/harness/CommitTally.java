package io.commitlane.bench.harness;

import io.commitlane.storage.ConflictException;
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

/**
 * What a benchmark's workers count while they run (commits, conflicts, latency, failures), and
 * the measured window the runner reads from it. Workers and completion callbacks count on many
 * threads at once; the runner opens and closes the window from one.
 */
public final class CommitTally {
  /** How long a stopped worker waits for its commits still in flight. */
  private static final long DRAIN_TIMEOUT_SECONDS = 60;

  public final LongAdder commits = new LongAdder();
  public final LongAdder conflicts = new LongAdder();
  public final Recorder latency = new Recorder(3);
  public final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
  volatile boolean running = true;
  private long commitsAtOpen;
  private long conflictsAtOpen;

  /** What one window of {@code seconds} held. */
  public record Window(long commits, long conflicts, double seconds, Histogram latency) {
    public Measurement measurement() {
      return new Measurement(commits, conflicts, seconds, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99));
    }
  }

  /** One worker's loop, given its seed. */
  interface Worker {
    void run(long seed) throws Exception;
  }

  /** One asynchronous commit of an in-flight worker; {@code done} runs once when it has completed, whatever the outcome. */
  public interface AsyncCommit {
    void submit(SplittableRandom random, byte[] value, Runnable done) throws Exception;
  }

  /**
   * Starts {@code count} workers (as {@link #startWorkers}) that each keep up to {@code inFlight}
   * commits in flight: a slot is taken before each submit and given back by {@code done}, so no
   * thread ever blocks on a commit. Each commit writes the worker's next of {@code values}; once
   * stopped, a worker waits for its commits in flight to finish.
   */
  public List<Thread> startInFlightWorkers(int count, String namePrefix, CountDownLatch ready, int inFlight, CommitValues values, AsyncCommit commit) {
    return startWorkers(count, namePrefix, ready, seed -> {
      SplittableRandom random = new SplittableRandom(seed);
      CommitValues.Source source = values.forWorker(random);
      Semaphore slots = new Semaphore(inFlight);
      ready.countDown();
      while (running) {
        slots.acquire();
        commit.submit(random, source.next(random), slots::release);
      }
      if (!slots.tryAcquire(inFlight, DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("commits still in flight " + DRAIN_TIMEOUT_SECONDS + " s after the run ended");
      }
    });
  }

  /**
   * Starts {@code count} worker threads seeded {@code 0x5EED + i}. A worker that fails keeps its
   * error for {@link #stop} and counts itself ready, so the window is never awaited in vain.
   */
  List<Thread> startWorkers(int count, String namePrefix, CountDownLatch ready, Worker worker) {
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < count; t++) {
      long seed = 0x5EED + t;
      workers.add(new Thread(() -> {
        try {
          worker.run(seed);
        } catch (Throwable e) {
          errors.add(e);
          ready.countDown();
        }
      }, namePrefix + t));
    }
    workers.forEach(Thread::start);
    return workers;
  }

  /** A commitlane commit's outcome: a conflict is counted, any other failure is kept to fail the run. */
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

  /** Counts from here on belong to the window. */
  void openWindow() {
    commitsAtOpen = commits.sum();
    conflictsAtOpen = conflicts.sum();
    latency.getIntervalHistogram();
  }

  /** What was counted since {@link #openWindow()}, a window of {@code seconds}. */
  Window closeWindow(double seconds) {
    long c = commits.sum();
    long x = conflicts.sum();
    return new Window(c - commitsAtOpen, x - conflictsAtOpen, seconds, latency.getIntervalHistogram());
  }

  /**
   * Waits until every worker is ready, lets them warm up, then counts one window of {@code
   * seconds}. {@code atOpen} runs as the window opens (to start other interval counters there).
   */
  public Window measure(CountDownLatch ready, double warmupSeconds, double seconds, WindowListener listener, Runnable atOpen)
      throws Exception {
    ready.await();
    ContentionRunner.pause(warmupSeconds);
    openWindow();
    atOpen.run();
    listener.windowOpened();
    long t0 = System.nanoTime();
    ContentionRunner.pause(seconds);
    Window window = closeWindow((System.nanoTime() - t0) / 1e9);
    listener.windowClosed();
    return window;
  }

  /** Stops the workers, waits for each, and fails with the first error any of them kept. */
  public void stop(List<Thread> workers, String what) throws InterruptedException {
    running = false;
    for (Thread w : workers) {
      w.join();
    }
    if (!errors.isEmpty()) {
      throw new IllegalStateException(what + " failed", errors.get(0));
    }
  }
}
