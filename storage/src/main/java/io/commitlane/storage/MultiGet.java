package io.commitlane.storage;

import io.commitlane.storage.internal.commit.KeyHash;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;

/** Many point reads of one store in one JNI call (RocksDB's {@code MultiGet}), from one consistent view. */
final class MultiGet {
  private MultiGet() {}

  /** See {@link Database#multiGet(Store, List)}. */
  static List<byte[]> latest(Database handle, Store store, List<byte[]> keys) {
    handle.requireOwn(store);
    Objects.requireNonNull(keys, "keys").forEach(k -> Objects.requireNonNull(k, "key"));
    handle.enter();
    try {
      return read(handle.shared(), store, null, keys);
    } finally {
      handle.exit();
    }
  }

  /**
   * The values of {@code keys} (null where absent), in order. {@code readOptions} null reads the
   * latest data. Claims the store for the call, as a point read does.
   */
  static List<byte[]> read(SharedDatabase db, Store store, ReadOptions readOptions, List<byte[]> keys) {
    if (keys.isEmpty()) {
      return new ArrayList<>();
    }
    boolean claimed = store.claim();
    try {
      List<ColumnFamilyHandle> handles = Collections.nCopies(keys.size(), store.handle());
      return readOptions == null ? db.rocks().multiGetAsList(handles, keys)
          : db.rocks().multiGetAsList(readOptions, handles, keys);
    } catch (RocksDBException e) {
      throw new StorageException("multiGet of " + keys.size() + " keys failed in " + store, e);
    } finally {
      if (claimed) {
        store.release();
      }
    }
  }

  /**
   * A transaction's multi-get: its own writes answer first (a removal is null), the rest come from
   * its snapshot in one call and are tracked by {@link KeyHash}, as {@link Transaction#get} tracks.
   */
  static List<byte[]> merged(SharedDatabase db, Store store, List<byte[]> keys, WriteBuffer writes,
      Supplier<ReadOptions> snapshot, LongConsumer track) {
    byte[][] out = new byte[keys.size()][];
    boolean[] own = new boolean[out.length];
    List<byte[]> fetch = new ArrayList<>(out.length);
    for (int i = 0; i < out.length; i++) {
      byte[] w = writes.lookup(store, Objects.requireNonNull(keys.get(i), "key"));
      own[i] = w != null;
      out[i] = w == WriteBuffer.REMOVED ? null : w;
      if (w == null) {
        fetch.add(keys.get(i));
      }
    }
    if (!fetch.isEmpty()) {
      List<byte[]> got = read(db, store, snapshot.get(), fetch);
      for (int i = 0, k = 0; i < out.length; i++) {
        if (!own[i]) {
          out[i] = got.get(k++);
          track.accept(KeyHash.of(store.id(), keys.get(i)));
        }
      }
    }
    return java.util.Arrays.asList(out);
  }
}
