package io.commitlane.bench.strain;

import io.commitlane.bench.dataset.RocksNumbers;
import io.commitlane.bench.harness.WindowListener;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A {@link WindowListener} that follows RocksDB's compaction debt over a measured window: a
 * sampler thread reads the database's {@link RocksNumbers} every period, keeping the largest
 * pending-compaction estimate and level-0 file count seen; at the window's edges it reads the
 * write-stall counter, so the stall time is the window's own.
 */
final class CompactionDebt implements WindowListener {
  static final Duration DEFAULT_PERIOD = Duration.ofMillis(250);

  /**
   * One window's debt.
   *
   * @param stallMicros time writes were delayed or stopped during the window; -1 when RocksDB keeps no statistics
   */
  record Window(long stallMicros, long pendingBytesMax, long pendingBytesEnd, int level0FilesMax, int level0FilesEnd) {}

  private final Supplier<RocksNumbers> numbers;
  private final long periodNanos;
  private volatile boolean sampling;
  private Thread sampler;
  private volatile long pendingMax;
  private volatile int level0Max;
  private RocksNumbers first;
  private Window window;

  CompactionDebt(Supplier<RocksNumbers> numbers, Duration period) {
    this.numbers = numbers;
    this.periodNanos = period.toNanos();
  }

  @Override
  public void windowOpened() {
    first = numbers.get();
    pendingMax = first.pendingCompactionBytes();
    level0Max = first.level0Files();
    sampling = true;
    sampler = new Thread(this::sample, "bench-compaction-debt");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sample() {
    while (sampling) {
      java.util.concurrent.locks.LockSupport.parkNanos(periodNanos);
      record(numbers.get());
    }
  }

  /** Written by the sampler while it runs, then once by the window's closing thread after it stopped. */
  private void record(RocksNumbers n) {
    pendingMax = Math.max(pendingMax, n.pendingCompactionBytes());
    level0Max = Math.max(level0Max, n.level0Files());
  }

  @Override
  public void windowClosed() throws InterruptedException {
    sampling = false;
    sampler.join();
    RocksNumbers last = numbers.get();
    record(last);
    long stall = first.stallMicros() < 0 || last.stallMicros() < 0 ? -1 : last.stallMicros() - first.stallMicros();
    window = new Window(stall, pendingMax, last.pendingCompactionBytes(), level0Max, last.level0Files());
  }

  /** The closed window's debt; null before a window closed. */
  Window window() {
    return window;
  }
}
