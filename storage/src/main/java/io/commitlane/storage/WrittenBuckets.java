package io.commitlane.storage;

import java.util.Arrays;

/**
 * The buckets written by the members of a write group validated so far: an open-addressing set of
 * ints, so checking a later member against them costs one probe per bucket, not a scan.
 */
final class WrittenBuckets {
  private static final int EMPTY = -1; // buckets are never negative

  private int[] slots;
  private int size;

  WrittenBuckets(int expected) {
    slots = new int[tableSize(expected)];
    Arrays.fill(slots, EMPTY);
  }

  void add(int bucket) {
    if ((size + 1) * 2 > slots.length) {
      rehash();
    }
    int mask = slots.length - 1;
    for (int i = mix(bucket) & mask; ; i = (i + 1) & mask) {
      if (slots[i] == bucket) {
        return;
      }
      if (slots[i] == EMPTY) {
        slots[i] = bucket;
        size++;
        return;
      }
    }
  }

  boolean contains(int bucket) {
    int mask = slots.length - 1;
    for (int i = mix(bucket) & mask; ; i = (i + 1) & mask) {
      if (slots[i] == bucket) {
        return true;
      }
      if (slots[i] == EMPTY) {
        return false;
      }
    }
  }

  private void rehash() {
    int[] old = slots;
    slots = new int[old.length * 2];
    Arrays.fill(slots, EMPTY);
    size = 0;
    for (int b : old) {
      if (b != EMPTY) {
        add(b);
      }
    }
  }

  private static int tableSize(int expected) {
    return Integer.highestOneBit(Math.max(8, expected * 2 - 1)) << 1;
  }

  /** Bucket numbers are hash bits already; spread them so linear probing does not cluster. */
  private static int mix(int bucket) {
    return bucket * 0x9E3779B9;
  }
}
