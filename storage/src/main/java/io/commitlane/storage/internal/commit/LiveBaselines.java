package io.commitlane.storage.internal.commit;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * A lower bound on the baseline of every live transaction, so {@link RecentWrites} can forget what
 * no live transaction can ask about. Invariant: {@link #oldest()} is at most the baseline of every
 * transaction that entered and has not left, and at most the baseline of every transaction that
 * enters later.
 *
 * <p>Transactions register in generations instead of one by one: a ring of {@value #GENERATIONS}
 * counters, each with the clock value at which its generation started. A transaction {@link
 * #enter enters} the current generation and only then reads its baseline, so the baseline is at
 * least its generation's start; {@link #oldest} is the smallest start among generations with
 * members. Entering and leaving cost one atomic increment and decrement; the scan is a few reads.
 * A generation's slot is reused only once it is empty. When the ring is full (a transaction held
 * open for long), new transactions join the newest generation: {@code oldest()} stays put (still
 * a lower bound) until the old generation empties.
 *
 * <p>The bound decides only how precise {@link RecentWrites} is, never whether it is sound (what it
 * forgets raises its floor). A transaction that is never ended holds its generation forever; the
 * record then stays within its size bound by forgetting its oldest entries (conservative
 * conflicts for the oldest transactions only).
 */
public final class LiveBaselines {
  static final int GENERATIONS = 64;
  /** Commits between generation starts, at least: finer buys nothing but a fuller ring. */
  static final long SPAN = 16;
  /** Longs between counters: one cache line each, so the current and the previous do not share one. */
  private static final int STRIDE = 8;

  private final LongSupplier clock;
  private final AtomicLongArray members = new AtomicLongArray(GENERATIONS * STRIDE);
  private final AtomicLongArray starts = new AtomicLongArray(GENERATIONS);
  /** The generation new transactions join; its slot is {@code current % GENERATIONS}. Only grows. */
  private volatile long current;

  /** @param clock the commit clock: a transaction's baseline is read from it after {@link #enter} */
  public LiveBaselines(LongSupplier clock) {
    this.clock = clock;
    starts.set(0, clock.getAsLong());
  }

  /**
   * Join the current generation; read the baseline after this returns. The re-check makes sure the
   * generation did not move between reading it and joining it: a joined generation's start was
   * published before it became current, so the baseline read next is at least that start.
   *
   * @return the generation to {@link #leave} with
   */
  public long enter() {
    while (true) {
      long g = current;
      int counter = counter(g);
      members.getAndIncrement(counter);
      if (current == g) {
        return g;
      }
      members.getAndDecrement(counter);
    }
  }

  /** Leave a generation joined with {@link #enter}, once the transaction's validation is over. */
  public void leave(long generation) {
    members.getAndDecrement(counter(generation));
  }

  /**
   * At most the baseline of any transaction entered and not left, or entering from now on. Starts
   * a new generation first when the current one is at least {@value #SPAN} commits old, so the
   * bound follows the clock while transactions come and go.
   */
  public long oldest() {
    long now = clock.getAsLong(); // first: a transaction not seen below reads its baseline later
    advance(now);
    long min = now;
    for (int s = 0; s < GENERATIONS; s++) {
      if (members.get(s * STRIDE) > 0) {
        min = Math.min(min, starts.get(s));
      }
    }
    return min;
  }

  /** Generations started so far (tests). */
  long generation() {
    return current;
  }

  private synchronized void advance(long now) {
    long g = current;
    if (now - starts.get(slot(g)) < SPAN) {
      return;
    }
    long next = g + 1;
    if (members.get(counter(next)) != 0) {
      return; // the ring is full: its oldest generation still has members
    }
    starts.set(slot(next), now);
    current = next; // publishes the start
  }

  private static int slot(long generation) {
    return (int) (generation % GENERATIONS);
  }

  private static int counter(long generation) {
    return slot(generation) * STRIDE;
  }
}
