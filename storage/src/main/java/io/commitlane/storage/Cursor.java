package io.commitlane.storage;

import io.commitlane.storage.internal.commit.ScannedRanges;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.rocksdb.Snapshot;

/**
 * A scan in progress over a {@link KeyRange}: the keys in order, read lazily from one consistent
 * view of the database (a transaction's snapshot merged with its own writes, or, outside a
 * transaction, the view RocksDB's iterator took when the cursor opened). Holds native RocksDB
 * resources: always close it (try-with-resources).
 *
 * <p>Lifetime: a cursor ends when it is closed, when its transaction commits or aborts, or when
 * its database handle closes. Using it afterwards throws {@link CursorClosedException} (or {@link
 * DatabaseClosedException} after the handle closed); its native objects are freed at that end, so
 * a cursor left open never outlives the database. A cursor on a named store keeps that store from
 * being dropped physically until it ends. Not thread-safe: one thread at a time.
 *
 * <p>Paging: {@link #rest()} is exactly what this cursor has not returned of its range: the keys
 * after {@link #lastKey()}, within what is left of the range's limit, for a new cursor (or a new
 * transaction) to pick up where this one stopped. ({@code range.after(lastKey)} keeps the whole
 * limit: the next page of the same size when the limit is a page size.)
 */
public final class Cursor implements Iterator<KeyValue>, AutoCloseable {
  private final Database handle;
  private final KeyRange range;
  private final Store store;
  private final boolean claimed;
  private final boolean reverse;
  private final boolean keysOnly;
  /** Null when the range is empty: nothing native is opened. */
  private NativeScan base;
  private byte[] baseKey;
  private final OwnWrites own;
  /** Where a tracked scan records how far it got; null for untracked scans. */
  private final ScannedRanges.Interval interval;
  /** Told once when the cursor ends, so its owner forgets it. */
  private final Runnable onEnd;
  private int remaining;
  private KeyValue peeked;
  private boolean done;
  private byte[] lastKey;
  /** Guarded by this: why the cursor ended (null while open), and whether the natives are freed. */
  private String ended;
  private boolean endedByDatabase;
  private boolean released;

  /** The caller is inside {@code handle}'s gate. */
  Cursor(Database handle, KeyRange range, Snapshot snapshot, WriteBuffer ownWrites, ScannedRanges.Interval interval,
      Runnable onEnd) {
    this.handle = handle;
    this.range = range;
    this.store = range.storeIn(handle);
    this.reverse = range.isReverse();
    this.keysOnly = range.isKeysOnly();
    this.interval = interval;
    this.onEnd = onEnd;
    this.remaining = range.limit() == 0 ? Integer.MAX_VALUE : range.limit();
    byte[] start = range.start();
    byte[] end = range.end();
    this.claimed = store.claim(); // a dropped store throws here, as a point read does
    try {
      this.own = ownWrites == null ? OwnWrites.NONE : OwnWrites.of(ownWrites, store, start, end, reverse);
      if (!range.isEmpty()) {
        base = new NativeScan(handle.shared(), store, snapshot, start, end, reverse);
        baseKey = base.valid() ? base.key() : null;
      }
    } catch (RuntimeException | Error e) {
      if (base != null) {
        base.close();
      }
      if (claimed) {
        store.release();
      }
      throw e;
    }
  }

  /** A scan outside any transaction ({@link Database#scan}): RocksDB's iterator pins its own consistent view. */
  static Cursor outside(Database handle, KeyRange range) {
    handle.requireOwn(java.util.Objects.requireNonNull(range, "range").storeIn(handle));
    handle.enter();
    try {
      Cursor[] self = new Cursor[1];
      self[0] = new Cursor(handle, range, null, null, null, () -> handle.forgetCursor(self[0]));
      handle.rememberCursor(self[0]);
      return self[0];
    } finally {
      handle.exit();
    }
  }

  /** The range this cursor reads. */
  public KeyRange range() {
    return range;
  }

  @Override
  public boolean hasNext() {
    requireOpen();
    if (peeked != null) {
      return true;
    }
    if (done) {
      return false;
    }
    if (remaining == 0) {
      done = true; // stopped at its limit: a tracked scan covers up to the last key it returned
      return false;
    }
    handle.enter();
    try {
      peeked = advance();
    } finally {
      handle.exit();
    }
    if (peeked == null) {
      done = true;
      if (interval != null) {
        interval.exhausted();
      }
    } else if (interval != null) {
      interval.shown(peeked.key().clone()); // seen now, so covered now, whether or not next() follows
    }
    return peeked != null;
  }

  @Override
  public KeyValue next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the scan of " + range + " has no more keys" + (remaining == 0 ? " (its limit was reached)" : ""));
    }
    KeyValue kv = peeked;
    peeked = null;
    remaining--;
    lastKey = kv.key().clone();
    return kv;
  }

  /** The last key {@link #next()} returned (a copy), or null before the first. */
  public byte[] lastKey() {
    return lastKey == null ? null : lastKey.clone();
  }

  /**
   * Exactly the rest of the range: the keys after the last one returned, at most what is left of
   * the range's limit (the limit less what this cursor returned; an empty range once it is used
   * up, none without a limit). The whole range before the first key. Valid after close too.
   */
  public KeyRange rest() {
    return lastKey == null ? range : range.rest(lastKey, remaining);
  }

  /** Read what is left (up to the limit) into a list, then close. */
  public List<KeyValue> toList() {
    try {
      List<KeyValue> out = new ArrayList<>();
      while (hasNext()) {
        out.add(next());
      }
      return out;
    } finally {
      close();
    }
  }

  /** Count what is left (up to the limit), then close. */
  long countRest() {
    try {
      long n = 0;
      while (hasNext()) {
        next();
        n++;
      }
      return n;
    } finally {
      close();
    }
  }

  /** Free the native iterator, its read options and bound slices, and the store claim. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (ended == null) {
        ended = "it was closed";
      }
      if (released) {
        return;
      }
      if (!handle.tryEnter()) {
        return; // the handle is closing: its close frees the natives (endByDatabase)
      }
      try {
        release();
      } finally {
        handle.exit();
      }
    }
    onEnd.run();
  }

  /** Its transaction ended; the caller is inside the handle's gate, so the natives can go. */
  void endWithTransaction(String reason) {
    synchronized (this) {
      if (ended == null) {
        ended = reason;
      }
      if (!released) {
        release();
      }
    }
    onEnd.run();
  }

  /** The handle is closing: no call runs any more and the database is still open. Later use is a {@link DatabaseClosedException}. */
  synchronized void endByDatabase() {
    if (ended == null) {
      ended = "its database was closed";
      endedByDatabase = true;
    }
    if (!released) {
      release();
    }
  }

  private void release() {
    released = true;
    if (base != null) {
      base.close();
      base = null;
    }
    if (claimed) {
      store.release();
    }
  }

  private void requireOpen() {
    String why;
    boolean byDatabase;
    synchronized (this) {
      why = ended;
      byDatabase = endedByDatabase;
    }
    if (why == null) {
      return;
    }
    if (byDatabase) {
      throw new DatabaseClosedException(handle.path());
    }
    throw new CursorClosedException("the cursor over " + range + " cannot be used: " + why
        + ". Open a new cursor; to continue where it stopped, scan its rest()");
  }

  /** The next entry of the merged view, or null at the end: own writes win over the snapshot, own removals hide keys. */
  private KeyValue advance() {
    while (true) {
      boolean hasBase = baseKey != null;
      boolean hasOwn = own.valid();
      if (!hasBase && !hasOwn) {
        return null;
      }
      int c = !hasOwn ? -1 : !hasBase ? 1 : KeyRange.compare(baseKey, own.key()) * (reverse ? -1 : 1);
      if (c < 0) {
        KeyValue kv = new KeyValue(baseKey, keysOnly ? null : base.value());
        stepBase();
        return kv;
      }
      byte[] k = own.key();
      byte[] v = own.value();
      own.step();
      if (c == 0) {
        stepBase();
      }
      if (v != WriteBuffer.REMOVED) {
        return new KeyValue(k.clone(), keysOnly ? null : v.clone());
      }
    }
  }

  private void stepBase() {
    base.step();
    baseKey = base.valid() ? base.key() : null;
  }
}
