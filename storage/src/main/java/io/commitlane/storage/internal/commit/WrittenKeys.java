package io.commitlane.storage.internal.commit;

import java.util.Arrays;

/**
 * The keys (by {@link KeyHash}) written by the members of a write group validated so far: an
 * open-addressing set of longs, so checking a later member against them costs one probe per key.
 * Two keys with one hash count as one: a later member may then conflict falsely, never wrongly pass.
 */
final class WrittenKeys {
  /** Marks a free slot; a key whose hash is 0 is stored as 1 (a shared hash: see above). */
  private static final long EMPTY = 0;

  private long[] slots;
  private int size;

  WrittenKeys(int expected) {
    slots = new long[tableSize(expected)];
  }

  void add(long hash) {
    long h = hash == EMPTY ? 1 : hash;
    if ((size + 1) * 2 > slots.length) {
      rehash();
    }
    int mask = slots.length - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      if (slots[i] == h) {
        return;
      }
      if (slots[i] == EMPTY) {
        slots[i] = h;
        size++;
        return;
      }
    }
  }

  boolean contains(long hash) {
    long h = hash == EMPTY ? 1 : hash;
    int mask = slots.length - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      if (slots[i] == h) {
        return true;
      }
      if (slots[i] == EMPTY) {
        return false;
      }
    }
  }

  private void rehash() {
    long[] old = slots;
    slots = new long[old.length * 2];
    size = 0;
    for (long h : old) {
      if (h != EMPTY) {
        add(h);
      }
    }
  }

  private static int tableSize(int expected) {
    return Integer.highestOneBit(Math.max(8, expected * 2 - 1)) << 1;
  }

  /** The hash's high half: the low half chose the bucket, and keys in one bucket share its top bits. */
  private static int spread(long hash) {
    return (int) (hash >>> 32);
  }
}
