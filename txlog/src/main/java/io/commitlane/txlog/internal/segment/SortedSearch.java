package io.commitlane.txlog.internal.segment;

import java.util.function.LongUnaryOperator;

/** Binary search over an ascending sequence that a log keeps in a ring, read through an index function. */
public final class SortedSearch {
  private SortedSearch() {}

  /**
   * The index in {@code [lo, hi]} whose value is {@code target}, or -1. {@code valueAt} must be
   * ascending over the range; it may answer {@link Long#MIN_VALUE} for an index known to lie below
   * every value searched for.
   */
  public static long indexOf(long lo, long hi, LongUnaryOperator valueAt, long target) {
    while (lo <= hi) {
      long mid = (lo + hi) >>> 1;
      long value = valueAt.applyAsLong(mid);
      if (value < target) {
        lo = mid + 1;
      } else if (value > target) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }
}
