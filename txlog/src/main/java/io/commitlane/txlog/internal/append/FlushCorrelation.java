package io.commitlane.txlog.internal.append;

/**
 * Pairs (committed prefix P, RocksDB sequence S), recorded in order, each claiming "every record
 * below P finished its write at a sequence at most S". A flush that held sequence F makes the
 * largest P with S &lt;= F safe to persist as the flushed position. Any subset of valid pairs is
 * still valid, so when the ring is full every other pair is dropped: precision is lost, never
 * safety. Not thread-safe: guarded by the log's state lock.
 */
final class FlushCorrelation {
  private static final int CAPACITY = 1 << 16;

  private long[] prefixes = new long[64];
  private long[] sequences = new long[64];
  private int head;
  private int size;

  void record(long prefix, long sequence) {
    if (size > 0) {
      int last = slot(size - 1);
      if (prefixes[last] >= prefix) {
        return;
      }
      if (sequences[last] == sequence) {
        // Same sequence, larger prefix: strictly more useful, and valid on its own.
        prefixes[last] = prefix;
        return;
      }
    }
    if (size == prefixes.length) {
      if (size < CAPACITY) {
        grow();
      } else {
        thin();
      }
    }
    int s = slot(size);
    prefixes[s] = prefix;
    sequences[s] = sequence;
    size++;
  }

  /**
   * Removes the pairs covered by a flush of {@code flushedSequence} and returns the largest prefix
   * among them, or -1 if none. It stops at the first pair newer than the flush: samples are taken
   * in order under one lock, so sequences never decrease and this equals a full search; if a
   * sampler ever went backwards, stopping is the conservative choice.
   */
  long takeFlushed(long flushedSequence) {
    long best = -1;
    while (size > 0 && sequences[head] <= flushedSequence) {
      best = Math.max(best, prefixes[head]);
      head = (head + 1) & (prefixes.length - 1);
      size--;
    }
    return best;
  }

  int size() {
    return size;
  }

  /** A copy of the pairs, oldest first, as {prefix, sequence}. */
  long[][] pairs() {
    long[][] out = new long[size][];
    for (int i = 0; i < size; i++) {
      out[i] = new long[] {prefixes[slot(i)], sequences[slot(i)]};
    }
    return out;
  }

  private int slot(int i) {
    return (head + i) & (prefixes.length - 1);
  }

  private void grow() {
    long[] p = new long[prefixes.length * 2];
    long[] s = new long[p.length];
    for (int i = 0; i < size; i++) {
      p[i] = prefixes[slot(i)];
      s[i] = sequences[slot(i)];
    }
    prefixes = p;
    sequences = s;
    head = 0;
  }

  /** Keeps every other pair, and always the newest. */
  private void thin() {
    long[] p = new long[prefixes.length];
    long[] s = new long[p.length];
    int kept = 0;
    for (int i = 1; i < size; i += 2) {
      p[kept] = prefixes[slot(i)];
      s[kept] = sequences[slot(i)];
      kept++;
    }
    prefixes = p;
    sequences = s;
    head = 0;
    size = kept;
  }
}
