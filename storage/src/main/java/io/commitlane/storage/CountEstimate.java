package io.commitlane.storage;

import java.util.Arrays;
import java.util.List;
import org.rocksdb.Range;
import org.rocksdb.RocksDBException;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;

/**
 * A cheap estimate of how many keys a range holds, from RocksDB's own statistics: the store's
 * {@code rocksdb.estimate-num-keys}, scaled by the share of the store's bytes inside the range
 * ({@code GetApproximateSizes} over files and memtables). No key is read. Deleted and overwritten
 * keys still waiting for compaction count, so it can be off either way; use {@code count} when it
 * must be exact.
 */
final class CountEstimate {
  /** Stands for an open upper bound: above every key that does not start with 256 bytes of 0xFF. */
  private static final byte[] TOP = filled(256, (byte) 0xFF);

  private CountEstimate() {}

  /** See {@link Database#estimateCount}. */
  static long of(Database handle, KeyRange range) {
    Store store = java.util.Objects.requireNonNull(range, "range").storeIn(handle);
    handle.requireOwn(store);
    handle.enter();
    try {
      return of(handle.shared(), store, range);
    } finally {
      handle.exit();
    }
  }

  private static long of(SharedDatabase db, Store store, KeyRange range) {
    if (range.isEmpty()) {
      store.requireLive();
      return 0;
    }
    boolean claimed = store.claim();
    try {
      long keys = db.rocks().getLongProperty(store.handle(), "rocksdb.estimate-num-keys");
      byte[] start = range.start();
      byte[] end = range.end();
      if (start == null && end == null || keys == 0) {
        return keys;
      }
      try (Slice lo = new Slice(start == null ? new byte[0] : start); Slice hi = new Slice(end == null ? TOP : end);
          Slice first = new Slice(new byte[0]); Slice top = new Slice(TOP)) {
        long[] sizes = db.rocks().getApproximateSizes(store.handle(), List.of(new Range(lo, hi), new Range(first, top)),
            SizeApproximationFlag.INCLUDE_FILES, SizeApproximationFlag.INCLUDE_MEMTABLES);
        if (sizes[1] <= 0) {
          return 0;
        }
        return Math.min(keys, Math.round((double) keys * sizes[0] / sizes[1]));
      }
    } catch (RocksDBException e) {
      throw new StorageException("cannot estimate the keys of " + range + " in " + store, e);
    } finally {
      if (claimed) {
        store.release();
      }
    }
  }

  private static byte[] filled(int n, byte b) {
    byte[] a = new byte[n];
    Arrays.fill(a, b);
    return a;
  }
}
