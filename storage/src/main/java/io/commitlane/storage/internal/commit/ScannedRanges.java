package io.commitlane.storage.internal.commit;

import io.commitlane.storage.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The key intervals a transaction's tracked scans covered, validated at commit like its point
 * reads: a commit after its baseline that wrote a key inside one is a conflict ({@link
 * OrderedWrites}). Each scan records how far it got, not how far it could have gone: a scan that
 * stopped at its limit, or was closed early, covers up to the last key it showed (a key it only
 * peeked at with {@code hasNext} counts as shown); a scan that ran out covers its whole range.
 */
public final class ScannedRanges {
  /** One scan's interval; its cursor moves the frontier as it shows keys. */
  public static final class Interval {
    final Store store;
    private final byte[] start;
    private final byte[] end;
    private final boolean reverse;
    /** The farthest key shown (inclusive), or null while none was. */
    private byte[] frontier;
    private boolean exhausted;

    Interval(Store store, byte[] start, byte[] end, boolean reverse) {
      this.store = store;
      this.start = start;
      this.end = end;
      this.reverse = reverse;
    }

    public void shown(byte[] key) {
      frontier = key;
    }

    public void exhausted() {
      exhausted = true;
    }

    /** The covered interval's inclusive start (null: open). */
    byte[] low() {
      if (!reverse || exhausted) {
        return start;
      }
      return frontier;
    }

    /** The covered interval's exclusive end (null: open). */
    byte[] high() {
      if (reverse || exhausted) {
        return end;
      }
      return Arrays.copyOf(frontier, frontier.length + 1);
    }

    /** Whether it covers nothing: it showed no key and did not run out. */
    boolean isEmpty() {
      if (!exhausted && frontier == null) {
        return true;
      }
      byte[] lo = low();
      byte[] hi = high();
      return lo != null && hi != null && Arrays.compareUnsigned(lo, hi) >= 0;
    }

    boolean contains(byte[] key) {
      byte[] lo = low();
      byte[] hi = high();
      return (lo == null || Arrays.compareUnsigned(key, lo) >= 0) && (hi == null || Arrays.compareUnsigned(key, hi) < 0);
    }
  }

  private final List<Interval> intervals = new ArrayList<>(2);

  public Interval add(Store store, byte[] start, byte[] end, boolean reverse) {
    Interval i = new Interval(store, start, end, reverse);
    intervals.add(i);
    return i;
  }

  /** Every interval (empty ones included: they cover nothing). */
  public List<Interval> intervals() {
    return intervals;
  }

  /** Whether any interval covers {@code key} of {@code store}. */
  public boolean covers(Store store, byte[] key) {
    for (Interval i : intervals) {
      if (i.store == store && !i.isEmpty() && i.contains(key)) {
        return true;
      }
    }
    return false;
  }
}
