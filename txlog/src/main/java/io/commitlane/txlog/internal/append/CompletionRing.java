package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.internal.segment.SortedSearch;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The completion side of a {@link AppendMode#LEADERLESS} log: which claimed records finished or
 * aborted, and what log position that makes committed. Each claim gets the next ordinal, and its
 * start and end positions go into ring slots {@code ordinal % slots}; a completion adds {@code
 * [ordinal, ordinal + 1)} to a {@link LinkBufWatermark}, and {@link #committedPosition} turns the
 * ordinal watermark back into a log position.
 *
 * <p>The invariant: slot {@code w % slots} is not reused while the ordinal watermark is {@code w}
 * or below (a claim needs {@link #hasRoom room}: its ordinal less than a ring ahead of the
 * watermark), so a slot read while the watermark has not passed its ordinal holds that ordinal's
 * positions. Claims come one at a time (the caller's claim lock); completions and reads take no
 * lock.
 */
final class CompletionRing {
  private final LinkBufWatermark done;
  private final LongAdder completions = new LongAdder();
  private final AtomicLongArray startOf;
  private final AtomicLongArray endOf;
  private final int mask;

  /** Guarded by the caller's claim lock; {@link #claimedOrdinals} is its published copy. */
  private long nextOrdinal;
  private volatile long claimedOrdinals;
  private volatile long claimedEnd;

  /**
   * @param slots ring slots, a power of two: at most this many records may be claimed ahead of
   *     the oldest unfinished one
   * @param end where the log ends at open (the committed position while nothing is claimed)
   */
  CompletionRing(int slots, long end) {
    this.done = new LinkBufWatermark(slots, 0);
    this.startOf = new AtomicLongArray(slots);
    this.endOf = new AtomicLongArray(slots);
    this.mask = slots - 1;
    this.claimedEnd = end;
  }

  int capacity() {
    return done.capacity();
  }

  /** Under the claim lock: whether the next claim fits in the ring. */
  boolean hasRoom() {
    return done.fits(nextOrdinal + 1);
  }

  /** Without the claim lock: whether the next claim would fit now (for a caller waiting for room). */
  boolean hasRoomNow() {
    return done.fits(claimedOrdinals + 1);
  }

  /**
   * Under the claim lock, after {@link #hasRoom}: records the claim of {@code [position, end)} as
   * the next ordinal. Its slots are published before {@code claimedOrdinals}, and {@code
   * claimedEnd} after it (see {@link #committedPosition}).
   */
  void claim(long position, long end) {
    long ordinal = nextOrdinal;
    startOf.set((int) (ordinal & mask), position);
    endOf.set((int) (ordinal & mask), end);
    nextOrdinal = ordinal + 1;
    claimedOrdinals = ordinal + 1;
    claimedEnd = end;
  }

  /** The end of the last claim. */
  long claimedEnd() {
    return claimedEnd;
  }

  /** The end position of the claimed, unfinished record {@code ordinal}. */
  long endOf(long ordinal) {
    return endOf.get((int) (ordinal & mask));
  }

  /**
   * The ordinal of the record claimed at {@code position} that has not completed, or -1. A binary
   * search of the claimed ordinals the watermark has not passed: a slot the watermark passed lies
   * below any unfinished record.
   */
  long unfinishedOrdinal(long position) {
    long ordinal = SortedSearch.indexOf(done.watermark(), claimedOrdinals - 1, mid -> {
      long value = startOf.get((int) (mid & mask));
      // Read the slot first: if the watermark passed it meanwhile, it may already hold a newer claim.
      return done.watermark() > mid ? Long.MIN_VALUE : value;
    }, position);
    return ordinal < 0 || done.isCompleted(ordinal, ordinal + 1) ? -1 : ordinal;
  }

  /** Completes the record {@code ordinal} and moves the watermark. */
  void complete(long ordinal) {
    done.add(ordinal, ordinal + 1);
    completions.increment();
    done.advance();
  }

  /** Completes an aborted record and its abort marker together, then moves the watermark. */
  void complete(long ordinal, long markerOrdinal) {
    done.add(ordinal, ordinal + 1);
    done.add(markerOrdinal, markerOrdinal + 1);
    completions.add(2);
    done.advance();
  }

  /**
   * The committed watermark as a log position: the start of the first record not yet completed,
   * or the end of the last claim when every claim completed. Lock-free: slot {@code w} cannot be
   * reused while the watermark is {@code w}, and a claim publishes its slots before {@code
   * claimedOrdinals} and {@code claimedEnd} after it, so each read is validated by re-reading
   * the counter it depends on.
   */
  long committedPosition() {
    while (true) {
      long claimed = claimedOrdinals;
      long w = done.watermark();
      if (w < claimed) {
        long start = startOf.get((int) (w & mask));
        if (done.watermark() == w) {
          return start;
        }
      } else if (w == claimed) {
        long end = claimedEnd;
        if (claimedOrdinals == claimed) {
          return end;
        }
      }
    }
  }

  /** Records claimed and not yet finished or aborted. */
  int unfinished() {
    return (int) Math.max(0, claimedOrdinals - completions.sum());
  }

  /** Records claimed and not yet passed by the watermark (finished or not). */
  int lag() {
    return (int) Math.max(0, claimedOrdinals - done.watermark());
  }
}
