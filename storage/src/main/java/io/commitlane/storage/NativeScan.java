package io.commitlane.storage;

import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * A RocksDB iterator over one store, bounded natively with {@code iterate_lower_bound} and
 * {@code iterate_upper_bound} so it never walks past the range (and tombstones beyond it are never
 * visited), with the native objects it needs: its read options and the bound slices. {@link
 * #close()} frees all of them, iterator first; the caller makes sure the database is still open then.
 */
final class NativeScan implements AutoCloseable {
  private final ReadOptions options;
  private final Slice lowerSlice;
  private final Slice upperSlice;
  private final RocksIterator it;
  private final boolean reverse;
  private final String where;

  /** @param snapshot the transaction's snapshot, or null for an iterator's own consistent view */
  NativeScan(SharedDatabase db, Store store, Snapshot snapshot, byte[] start, byte[] end, boolean reverse) {
    this.reverse = reverse;
    this.where = store.toString();
    options = new ReadOptions();
    Slice lo = null;
    Slice hi = null;
    try {
      if (snapshot != null) {
        options.setSnapshot(snapshot);
      }
      if (start != null) {
        lo = new Slice(start);
        options.setIterateLowerBound(lo);
      }
      if (end != null) {
        hi = new Slice(end);
        options.setIterateUpperBound(hi);
      }
      lowerSlice = lo;
      upperSlice = hi;
      it = db.rocks().newIterator(store.handle(), options);
    } catch (RuntimeException | Error e) {
      closeQuietly(lo, hi, options);
      throw e;
    }
    // The bounds make seekToFirst/seekToLast land on the range's first or last key.
    if (reverse) {
      it.seekToLast();
    } else {
      it.seekToFirst();
    }
  }

  /** Whether the iterator is on a key; at the end it reports a RocksDB error instead of hiding it. */
  boolean valid() {
    if (it.isValid()) {
      return true;
    }
    try {
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("scan of " + where + " failed", e);
    }
    return false;
  }

  byte[] key() {
    return it.key();
  }

  byte[] value() {
    return it.value();
  }

  /** One step in the scan's direction. */
  void step() {
    if (reverse) {
      it.prev();
    } else {
      it.next();
    }
  }

  @Override
  public void close() {
    it.close();
    closeQuietly(lowerSlice, upperSlice, options);
  }

  private static void closeQuietly(Slice lo, Slice hi, ReadOptions ro) {
    ro.close();
    if (lo != null) {
      lo.close();
    }
    if (hi != null) {
      hi.close();
    }
  }
}
