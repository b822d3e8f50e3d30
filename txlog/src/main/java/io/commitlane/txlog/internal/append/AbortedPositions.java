package io.commitlane.txlog.internal.append;

import java.util.Arrays;

/**
 * The positions of aborted records, as a sorted copy-on-write array: aborts are rare and every
 * reader checks each record, so lookups take no lock. Writers hold the log's state lock.
 */
public final class AbortedPositions {
  private volatile long[] sorted = new long[0];

  public boolean contains(long position) {
    long[] a = sorted;
    return a.length != 0 && Arrays.binarySearch(a, position) >= 0;
  }

  public void add(long position) {
    long[] a = sorted;
    int i = Arrays.binarySearch(a, position);
    if (i >= 0) {
      return;
    }
    int at = -i - 1;
    long[] b = new long[a.length + 1];
    System.arraycopy(a, 0, b, 0, at);
    b[at] = position;
    System.arraycopy(a, at, b, at + 1, a.length - at);
    sorted = b;
  }

  /** Forgets positions below {@code position} (their segments were purged). */
  public void dropBelow(long position) {
    long[] a = sorted;
    int i = Arrays.binarySearch(a, position);
    int from = i >= 0 ? i : -i - 1;
    if (from > 0) {
      sorted = Arrays.copyOfRange(a, from, a.length);
    }
  }

  public int size() {
    return sorted.length;
  }
}
