package io.commitlane.storage;

import java.util.Objects;

/**
 * Removes every key of a range (a whole store with {@code KeyRange.all().in(store)}) as one
 * ordinary transaction: a tracked scan of the range, then a delete of each key it found, committed
 * through the commit path. So a clear is serializable with every other commit:
 *
 * <ul>
 *   <li>a commit that wrote into the range before the clear's commit is cleared by it; one that
 *       wrote into the range after the clear's scan started makes the clear conflict, and it is run
 *       again on a fresh snapshot (up to {@link #MAX_RETRIES} times), so nothing is half-cleared
 *       and nothing written after the clear is removed;
 *   <li>a transaction that read a key the clear removed conflicts at its commit, like after any
 *       other delete; readers see the range either whole or empty;
 *   <li>with {@link #logged(String)} the deletes are in the transaction log, for replay.
 * </ul>
 *
 * <p>The deletes are buffered in memory and written in one RocksDB write: about the key bytes
 * plus 30 bytes per key. For a store of many millions of keys, drop it and create it again
 * instead. The space the deleted values held is returned by compaction ({@link
 * Database#compact}).
 */
public final class RangeClear implements TransactionFunction<Long> {
  /** Attempts after the first that conflicted: writers into the range make a clear run again. */
  public static final int MAX_RETRIES = 10;

  private final KeyRange range;
  private final String log;

  private RangeClear(KeyRange range, String log) {
    this.range = Objects.requireNonNull(range, "range").keysOnly();
    if (range.limit() != 0) {
      throw new InvalidRangeException("a clear takes a range without a limit (it removes every key of the range): " + range);
    }
    this.log = log;
  }

  /** A clear of the keys of {@code range} (no limit; the default store unless the range names one). */
  public static RangeClear of(KeyRange range) {
    return new RangeClear(range, null);
  }

  /** This clear, its deletes also appended to the transaction log {@code name}. */
  public RangeClear logged(String name) {
    return new RangeClear(range, Objects.requireNonNull(name, "name"));
  }

  /** Scans the range (tracked) and removes what it found; returns the number of keys removed. */
  @Override
  public Long apply(Transaction txn) {
    if (log != null) {
      txn.useLog(log);
    }
    Store store = range.storeIn(txn.database());
    long removed = 0;
    try (Cursor c = txn.scan(range)) {
      while (c.hasNext()) {
        txn.remove(store, c.next().key());
        removed++;
      }
    }
    return removed;
  }
}
