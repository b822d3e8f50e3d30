package io.commitlane.txlog;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Millisecond-ish timestamps that are unique and strictly increasing per instance (use one per log
 * or database), even when the wall clock steps back: each value is {@code max(now, last + 1)}.
 * Under a burst the values run ahead of the wall clock and catch up when it passes them.
 */
public final class MonotonicClock {
  private final LongSupplier wallMillis;
  private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);

  /** A clock over {@link System#currentTimeMillis()}. */
  public MonotonicClock() {
    this(System::currentTimeMillis);
  }

  /** A clock over {@code wallMillis}, e.g. a test clock. */
  public MonotonicClock(LongSupplier wallMillis) {
    this.wallMillis = wallMillis;
  }

  /** The next timestamp: greater than every value this clock returned before. */
  public long next() {
    long now = wallMillis.getAsLong();
    while (true) {
      long previous = last.get();
      long next = previous == Long.MIN_VALUE ? now : Math.max(now, previous + 1);
      if (last.compareAndSet(previous, next)) {
        return next;
      }
    }
  }

  /** Ensures later values exceed {@code timestamp}, e.g. the newest timestamp found in a log at open. */
  public void advancePast(long timestamp) {
    last.accumulateAndGet(timestamp, Math::max);
  }
}
