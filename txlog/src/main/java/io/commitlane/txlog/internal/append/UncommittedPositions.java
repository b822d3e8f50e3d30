package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.internal.segment.SortedSearch;

/**
 * The appended records at or above the committed watermark, in position order, each marked
 * finished or not. Appends arrive in position order (under the append lock), so a ring of longs
 * kept sorted by construction is enough: finish is a binary search, and the watermark is the
 * first unfinished position. Not thread-safe: the log guards it with its state lock.
 */
final class UncommittedPositions {
  /** Positions are non-negative, so the sign bit is free to mark "finished". */
  private static final long FINISHED = Long.MIN_VALUE;

  private long[] ring = new long[1024];
  private int head;
  private int size;
  private int unfinished;

  void add(long position) {
    if (size == ring.length) {
      grow();
    }
    ring[(head + size) & (ring.length - 1)] = position;
    size++;
    unfinished++;
  }

  /**
   * Marks {@code position} finished and drops the finished prefix.
   *
   * @return false if it is not an unfinished appended position
   */
  boolean finish(long position) {
    int i = indexOf(position);
    if (i < 0) {
      return false;
    }
    int slot = (head + i) & (ring.length - 1);
    if (ring[slot] < 0) {
      return false;
    }
    ring[slot] |= FINISHED;
    unfinished--;
    int mask = ring.length - 1;
    while (size > 0 && ring[head] < 0) {
      head = (head + 1) & mask;
      size--;
    }
    return true;
  }

  /** The first unfinished position, or {@code end} if every appended record finished. */
  long watermark(long end) {
    return size == 0 ? end : ring[head];
  }

  boolean contains(long position) {
    int i = indexOf(position);
    return i >= 0 && ring[(head + i) & (ring.length - 1)] >= 0;
  }

  /** Records that have not finished. */
  int unfinished() {
    return unfinished;
  }

  /** Records at or above the watermark, finished or not. */
  int size() {
    return size;
  }

  private int indexOf(long position) {
    int mask = ring.length - 1;
    return (int) SortedSearch.indexOf(0, size - 1, i -> ring[(head + (int) i) & mask] & ~FINISHED, position);
  }

  private void grow() {
    long[] bigger = new long[ring.length * 2];
    for (int i = 0; i < size; i++) {
      bigger[i] = ring[(head + i) & (ring.length - 1)];
    }
    ring = bigger;
    head = 0;
  }
}
