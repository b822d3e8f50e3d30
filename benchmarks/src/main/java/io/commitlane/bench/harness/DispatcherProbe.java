package io.commitlane.bench.harness;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Times a trivial task on an executor: a plain thread submits one every period, and the task
 * records how long it waited to run. Only tasks submitted inside the measured window count, and
 * the window closes only after all of them ran, so the slowest ones are not left out.
 */
public final class DispatcherProbe implements WindowListener, AutoCloseable {
  private static final Duration STRAGGLER_TIMEOUT = Duration.ofSeconds(30);

  private final Executor target;
  private final Duration stragglerTimeout;
  private final long periodNanos;
  private final Recorder waits = new Recorder(3);
  private final AtomicLong pending = new AtomicLong();
  private final Thread ticker;
  private volatile boolean running = true;
  private boolean inWindow; // guarded by this: a submission and the window's edges never interleave
  private Histogram window;

  private DispatcherProbe(Executor target, Duration period, Duration stragglerTimeout) {
    this.target = target;
    this.stragglerTimeout = stragglerTimeout;
    this.periodNanos = period.toNanos();
    this.ticker = new Thread(this::tick, "bench-dispatcher-probe");
    this.ticker.setDaemon(true);
  }

  public static DispatcherProbe start(Executor target, Duration period) {
    return start(target, period, STRAGGLER_TIMEOUT);
  }

  /**
   * As {@link #start(Executor, Duration)}, failing the window only if a task submitted in it has
   * not run {@code stragglerTimeout} after it closed (longer where writes may stop for a while).
   */
  public static DispatcherProbe start(Executor target, Duration period, Duration stragglerTimeout) {
    DispatcherProbe probe = new DispatcherProbe(target, period, stragglerTimeout);
    probe.ticker.start();
    return probe;
  }

  private void tick() {
    long next = System.nanoTime();
    while (running) {
      next += periodNanos;
      long now = System.nanoTime();
      if (now - next > periodNanos) {
        next = now; // the ticker itself was descheduled: skip the missed ticks rather than burst
      }
      for (long left; running && (left = next - System.nanoTime()) > 0; ) {
        LockSupport.parkNanos(left);
      }
      submit();
    }
  }

  private synchronized void submit() {
    boolean counted = inWindow;
    if (counted) {
      pending.incrementAndGet();
    }
    long submitted = System.nanoTime();
    target.execute(() -> {
      if (counted) {
        waits.recordValue(System.nanoTime() - submitted);
        pending.decrementAndGet();
      }
    });
  }

  @Override
  public synchronized void windowOpened() {
    inWindow = true;
  }

  @Override
  public void windowClosed() throws InterruptedException {
    synchronized (this) {
      inWindow = false;
    }
    long deadline = System.nanoTime() + stragglerTimeout.toNanos();
    while (pending.get() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(pending.get() + " probe tasks had not run " + stragglerTimeout.toSeconds() + " s after the window closed");
      }
      Thread.sleep(1); // a benchmark's wait for its own stragglers, not test synchronization
    }
    window = waits.getIntervalHistogram();
  }

  /** The closed window's waits; null before a window closed. */
  public Histogram window() {
    return window;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    ticker.join();
  }
}
