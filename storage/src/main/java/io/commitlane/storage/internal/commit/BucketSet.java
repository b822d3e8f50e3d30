package io.commitlane.storage.internal.commit;

import java.util.Arrays;

/**
 * The lock buckets one commit touches: sorted and without duplicates, so every commit takes its
 * locks in the same global order (no deadlock) and never twice (the locks are not reentrant).
 */
final class BucketSet {
  private int[] buckets;
  private int size;

  BucketSet(int capacity) {
    buckets = new int[Math.max(1, capacity)];
  }

  void add(int bucket) {
    if (size == buckets.length) {
      buckets = Arrays.copyOf(buckets, size * 2);
    }
    buckets[size++] = bucket;
  }

  /** Sort and drop duplicates; call once, after the last {@link #add}. */
  void seal() {
    if (size < 2) {
      return;
    }
    Arrays.sort(buckets, 0, size);
    int n = 1;
    for (int i = 1; i < size; i++) {
      if (buckets[i] != buckets[n - 1]) {
        buckets[n++] = buckets[i];
      }
    }
    size = n;
  }

  int size() {
    return size;
  }

  int get(int i) {
    return buckets[i];
  }
}
