package io.commitlane.txlog.internal.append;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free watermark over ranges completed out of order, after InnoDB's {@code ut0link_buf.h}.
 * Ranges tile a number line from the start value: each is added once,
 * as {@code [from, to)}, by storing {@code to} in the ring slot {@code from % capacity}. The
 * watermark is the end of the contiguous completed prefix; any thread may {@link #advance} it by
 * following links from it and publishing the end with one CAS.
 *
 * <p>Slots are never cleared: a slot still holding a link from an earlier lap holds a value at
 * most the current watermark (that link was followed, so the watermark passed its end), so the
 * scan's {@code next > pos} test skips it; clearing would race with a wrap-around store. A range
 * may be added only while {@code to - watermark <= capacity} ({@link #fits}), so two unconsumed
 * links never share a slot and a scan never runs into the next lap.
 *
 * <p>Memory: the ring's reads and writes are volatile, so a thread that sees the watermark past a
 * range also sees everything its adder did before {@link #add}.
 */
public final class LinkBufWatermark {
  private final AtomicLongArray links;
  private final long capacity;
  private final int mask;
  private final AtomicLong watermark;

  /**
   * @param capacity ring slots, a power of two (2..2^30)
   * @param start the first value of the number line (the initial watermark)
   */
  public LinkBufWatermark(int capacity, long start) {
    if (capacity < 2 || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two >= 2: " + capacity);
    }
    this.links = new AtomicLongArray(capacity);
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.watermark = new AtomicLong(start);
    // Every slot starts below the watermark, so it reads as "not completed".
    for (int i = 0; i < capacity; i++) {
      links.set(i, start);
    }
  }

  int capacity() {
    return (int) capacity;
  }

  /** The end of the contiguous completed prefix. Never decreases. */
  public long watermark() {
    return watermark.get();
  }

  /** Whether a range ending at {@code to} may be added now. */
  public boolean fits(long to) {
    return to - watermark.get() <= capacity;
  }

  /**
   * Marks {@code [from, to)} completed. Does not move the watermark: call {@link #advance}.
   *
   * @throws IllegalArgumentException if the range is empty or does not {@link #fits fit}
   */
  public void add(long from, long to) {
    if (to <= from || from < watermark.get()) {
      throw new IllegalArgumentException("range [" + from + ", " + to + ") is empty or below the"
          + " watermark " + watermark.get());
    }
    if (!fits(to)) {
      throw new IllegalArgumentException("range [" + from + ", " + to + ") is beyond the ring's"
          + " horizon: watermark " + watermark.get() + ", capacity " + capacity);
    }
    links.set((int) (from & mask), to);
  }

  /** Whether {@code [from, to)} was already added (whether or not the watermark passed it). */
  public boolean isCompleted(long from, long to) {
    return from < watermark.get() || links.get((int) (from & mask)) == to;
  }

  /**
   * Moves the watermark over every contiguous completed range and returns it (at least the value
   * it had when this was called). Lock-free: a thread whose CAS loses retries from the winner's
   * value, so the last completer of a prefix always sees that prefix published.
   */
  public long advance() {
    while (true) {
      long start = watermark.get();
      long pos = start;
      long next;
      // A successful CAS below proves the watermark stayed at start during the whole scan, so no
      // slot the scan read was reused meanwhile (reuse needs the watermark past it).
      while ((next = links.get((int) (pos & mask))) > pos) {
        pos = next;
      }
      if (pos == start) {
        return start;
      }
      if (watermark.compareAndSet(start, pos)) {
        return pos;
      }
    }
  }
}
