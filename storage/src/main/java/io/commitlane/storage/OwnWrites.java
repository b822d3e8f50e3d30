package io.commitlane.storage;

import io.commitlane.storage.internal.commit.WriteBuffer;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A transaction's buffered writes to one store inside a scan's bounds, sorted in the scan's
 * direction: the side of the merge that {@link Cursor} lays over the snapshot (what RocksDB's
 * {@code WriteBatchWithIndex.newIteratorWithBase} does natively). Taken when the cursor opens, so
 * writes the transaction makes while the cursor is open do not show in it.
 *
 * <p>Why not the native index: the buffer is the source of truth for commits, and copying every
 * write into a {@code WriteBatchWithIndex} would cost a JNI call per write for every transaction,
 * scanning or not. Sorting the few writes inside a range at scan time costs only scanners.
 */
final class OwnWrites {
  /** No writes (a scan outside a transaction); never stepped, so sharing it is safe. */
  static final OwnWrites NONE = new OwnWrites(new byte[0][], new byte[0][]);

  private final byte[][] keys;
  /** {@link WriteBuffer#REMOVED} for a buffered removal. */
  private final byte[][] values;
  private int next;

  private OwnWrites(byte[][] keys, byte[][] values) {
    this.keys = keys;
    this.values = values;
  }

  static OwnWrites of(WriteBuffer writes, Store store, byte[] start, byte[] end, boolean reverse) {
    int n = 0;
    int[] picked = null;
    for (int i = 0; i < writes.size(); i++) {
      if (writes.store(i) == store && inside(writes.key(i), start, end)) {
        if (picked == null) {
          picked = new int[writes.size() - i];
        }
        picked[n++] = i;
      }
    }
    if (n == 0) {
      return NONE;
    }
    Integer[] order = new Integer[n];
    for (int k = 0; k < n; k++) {
      order[k] = picked[k];
    }
    Comparator<Integer> byKey = (a, b) -> KeyRange.compare(writes.key(a), writes.key(b));
    Arrays.sort(order, reverse ? byKey.reversed() : byKey);
    byte[][] keys = new byte[n][];
    byte[][] values = new byte[n][];
    for (int k = 0; k < n; k++) {
      keys[k] = writes.key(order[k]);
      byte[] v = writes.value(order[k]);
      values[k] = v == null ? WriteBuffer.REMOVED : v;
    }
    return new OwnWrites(keys, values);
  }

  private static boolean inside(byte[] key, byte[] start, byte[] end) {
    return (start == null || KeyRange.compare(key, start) >= 0) && (end == null || KeyRange.compare(key, end) < 0);
  }

  boolean valid() {
    return next < keys.length;
  }

  byte[] key() {
    return keys[next];
  }

  /** The value, or {@link WriteBuffer#REMOVED}. */
  byte[] value() {
    return values[next];
  }

  void step() {
    next++;
  }
}
