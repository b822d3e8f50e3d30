package io.commitlane.storage.internal.commit;

import io.commitlane.storage.Store;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Buffered writes in the order first made; a later write to the same (store, key) replaces the
 * earlier one in place, so each key is written once. Small buffers are searched linearly; from
 * {@value #INDEX_THRESHOLD} writes on, a hash index keeps read-your-writes lookups O(1).
 */
public final class WriteBuffer {
  /** A removal buffered for a key. Distinct from "not buffered" (lookup returns null). */
  public static final byte[] REMOVED = new byte[0];
  private static final int INDEX_THRESHOLD = 8;

  private Store[] stores;
  private byte[][] keys;
  private byte[][] values;
  /** KeyHash of each (store, key), computed once at put: the index, the lock buckets and validation reuse it. */
  private long[] hashes;
  private int size;
  /** Key and value bytes buffered (a replaced value no longer counts): bounds merged write groups. */
  private long bytes;
  private Map<KeyRef, Integer> index;

  public WriteBuffer(int capacity) {
    int c = Math.max(1, capacity);
    stores = new Store[c];
    keys = new byte[c][];
    values = new byte[c][];
    hashes = new long[c];
  }

  /** Buffer a put ({@code value} non-null) or a removal ({@code value == null}). */
  public void put(Store store, byte[] key, byte[] value) {
    long hash = KeyHash.of(store.id(), key);
    int at = indexOf(store, key, hash);
    if (at >= 0) {
      bytes += length(value) - length(values[at]);
      values[at] = value;
      return;
    }
    if (size == stores.length) {
      int c = size * 2;
      stores = Arrays.copyOf(stores, c);
      keys = Arrays.copyOf(keys, c);
      values = Arrays.copyOf(values, c);
      hashes = Arrays.copyOf(hashes, c);
    }
    stores[size] = store;
    keys[size] = key;
    values[size] = value;
    hashes[size] = hash;
    bytes += key.length + length(value);
    if (index != null) {
      index.put(new KeyRef(store, key, hash), size);
    } else if (size + 1 == INDEX_THRESHOLD) {
      index = new HashMap<>();
      for (int i = 0; i <= size; i++) {
        index.put(new KeyRef(stores[i], keys[i], hashes[i]), i);
      }
    }
    size++;
  }

  /** The buffered value, {@link #REMOVED} for a buffered removal, or null if nothing is buffered. */
  public byte[] lookup(Store store, byte[] key) {
    int at = indexOf(store, key, index == null ? 0 : KeyHash.of(store.id(), key));
    if (at < 0) {
      return null;
    }
    return values[at] == null ? REMOVED : values[at];
  }

  public int size() {
    return size;
  }

  public long bytes() {
    return bytes;
  }

  private static int length(byte[] value) {
    return value == null ? 0 : value.length;
  }

  public Store store(int i) {
    return stores[i];
  }

  public byte[] key(int i) {
    return keys[i];
  }

  /** The {@link KeyHash} of write {@code i}'s (store, key). */
  long hash(int i) {
    return hashes[i];
  }

  /** The value written, or null for a removal. */
  public byte[] value(int i) {
    return values[i];
  }

  /** {@code hash} is only used once the index exists. */
  private int indexOf(Store store, byte[] key, long hash) {
    if (index != null) {
      Integer at = index.get(new KeyRef(store, key, hash));
      return at == null ? -1 : at;
    }
    for (int i = 0; i < size; i++) {
      if (stores[i] == store && Arrays.equals(keys[i], key)) {
        return i;
      }
    }
    return -1;
  }

  private record KeyRef(Store store, byte[] key, long hash) {
    @Override
    public boolean equals(Object o) {
      return o instanceof KeyRef k && k.store == store && Arrays.equals(k.key, key);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(hash);
    }
  }
}
