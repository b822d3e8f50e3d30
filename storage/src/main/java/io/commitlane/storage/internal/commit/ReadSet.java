package io.commitlane.storage.internal.commit;

import io.commitlane.storage.Transaction;
import java.util.Arrays;

/**
 * The keys a transaction read through {@link Transaction#get}, by {@link KeyHash}: validated per
 * key at commit. Sorted and without duplicates once sealed.
 */
public final class ReadSet {
  private long[] hashes;
  private int size;

  public ReadSet(int capacity) {
    hashes = new long[Math.max(1, capacity)];
  }

  public void add(long hash) {
    if (size == hashes.length) {
      hashes = Arrays.copyOf(hashes, size * 2);
    }
    hashes[size++] = hash;
  }

  /** Sort and drop duplicates; idempotent, and {@link #add} may follow (then seal again). */
  public void seal() {
    if (size < 2) {
      return;
    }
    Arrays.sort(hashes, 0, size);
    int n = 1;
    for (int i = 1; i < size; i++) {
      if (hashes[i] != hashes[n - 1]) {
        hashes[n++] = hashes[i];
      }
    }
    size = n;
  }

  int size() {
    return size;
  }

  long get(int i) {
    return hashes[i];
  }
}
