package io.commitlane.bench.harness;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Transaction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Plain-thread workers committing to one database, all one way: asynchronously ({@code
 * commit(txn)}, up to {@code inFlight} each, released by the completion callback so no pool
 * thread blocks) or synchronously ({@code commitSync}, one per thread). {@code bench}'s scenarios
 * combine groups: several databases, async and sync workers side by side.
 */
public final class WorkerGroup {
  private static final long DRAIN_TIMEOUT_SECONDS = 60;

  /** Builds the transaction a worker commits next; runs on the worker's thread. */
  public interface TransactionMaker {
    Transaction make(CommitlaneDatabase db, SplittableRandom random, byte[] value);
  }

  /** Random keys from {@code keySpace}, all written with the worker's value, optionally with one log entry per key. */
  public static TransactionMaker blindWrites(int keys, int keySpace, boolean log) {
    return (db, random, value) -> {
      byte[][] k = new byte[keys][];
      for (int i = 0; i < k.length; i++) {
        k[i] = key(random.nextInt(keySpace));
      }
      return BenchTransactions.begin(db, k, value, log);
    };
  }

  /** 8-byte big-endian key. */
  public static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i).array();
  }

  public final String label;
  private final CommitlaneDatabase db;
  private final int threads;
  /** 0: synchronous. */
  private final int inFlight;
  private final TransactionMaker maker;
  private final int valueSize;
  private final long seed;
  final CommitTally tally = new CommitTally();
  private final List<Thread> workers = new ArrayList<>();

  public WorkerGroup(String label, CommitlaneDatabase db, int threads, int inFlight, TransactionMaker maker, int valueSize, long seed) {
    this.label = label;
    this.db = db;
    this.threads = threads;
    this.inFlight = inFlight;
    this.maker = maker;
    this.valueSize = valueSize;
    this.seed = seed;
  }

  boolean async() {
    return inFlight > 0;
  }

  public void start(CountDownLatch ready) {
    for (int t = 0; t < threads; t++) {
      long s = seed + t;
      Thread w = new Thread(() -> {
        try {
          if (async()) {
            workAsync(s, ready);
          } else {
            workSync(s, ready);
          }
        } catch (Throwable e) {
          tally.errors.add(e);
        }
      }, "bench-" + label.replace(' ', '-') + "-" + t);
      workers.add(w);
      w.start();
    }
  }

  public int threads() {
    return threads;
  }

  /** Commits acknowledged so far, windows aside. */
  public long commitsSoFar() {
    return tally.commits.sum();
  }

  public void windowOpened() {
    tally.openWindow();
  }

  /** The window's counts and latencies. */
  public Result windowClosed(double seconds) {
    CommitTally.Window w = tally.closeWindow(seconds);
    return new Result(label, w.commits(), w.conflicts(), seconds, w.latency());
  }

  /** Stops submitting, waits for what is in flight, and rethrows the first worker failure. */
  public void stop() throws InterruptedException {
    tally.stop(workers, label);
  }

  /** One group's (or several merged groups') window. */
  public record Result(String label, long commits, long conflicts, double seconds, Histogram latency) {
    public Measurement measurement() {
      return new Measurement(commits, conflicts, seconds, latency.getValueAtPercentile(50), latency.getValueAtPercentile(99));
    }

    public Result merge(Result other) {
      Histogram h = latency.copy();
      h.add(other.latency);
      return new Result(label, commits + other.commits, conflicts + other.conflicts, Math.max(seconds, other.seconds), h);
    }
  }

  private byte[] value(SplittableRandom random) {
    return BenchTransactions.randomValue(random, valueSize);
  }

  private void workAsync(long s, CountDownLatch ready) throws InterruptedException {
    SplittableRandom random = new SplittableRandom(s);
    byte[] value = value(random);
    Semaphore slots = new Semaphore(inFlight);
    ready.countDown();
    while (tally.running) {
      slots.acquire();
      long start = System.nanoTime();
      Transaction txn;
      try {
        txn = maker.make(db, random, value);
      } catch (RuntimeException e) {
        slots.release();
        throw e;
      }
      db.commit(txn).whenComplete((result, error) -> {
        tally.record(System.nanoTime() - start, error);
        slots.release();
      });
    }
    if (!slots.tryAcquire(inFlight, DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException("commits still in flight " + DRAIN_TIMEOUT_SECONDS + " s after the run ended");
    }
  }

  private void workSync(long s, CountDownLatch ready) {
    SplittableRandom random = new SplittableRandom(s);
    byte[] value = value(random);
    ready.countDown();
    while (tally.running) {
      long start = System.nanoTime();
      Throwable error = null;
      try {
        db.commitSync(maker.make(db, random, value));
      } catch (ConflictException e) {
        error = e;
      }
      tally.record(System.nanoTime() - start, error);
    }
  }

}
