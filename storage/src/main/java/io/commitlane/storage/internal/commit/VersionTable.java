package io.commitlane.storage.internal.commit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The per-database lock stripes of optimistic validation and its cheap first check: for each lock
 * bucket, the commit-clock value of the last commit that wrote a key hashing there, and that
 * bucket's commit lock. A bucket not written since a transaction's baseline cannot hold a
 * conflict; when it was, {@link RecentWrites} decides per key.
 *
 * <p>A slot is one {@code long}: bit 63 is the lock, bit 62 says that a thread waits for the lock,
 * the low 62 bits are the version. Packing the lock into the version word makes a bucket cost 8
 * bytes, against about 40 for RocksDB's mutex per bucket. Slots live in chunks of {@value
 * #CHUNK_SIZE} that are allocated on the first write to a bucket in them, so an idle database
 * costs a pointer array and a busy one grows towards {@code buckets * 8} bytes.
 *
 * <p>Collisions between keys only add lock waits and per-key look-ups, never hide a real
 * conflict: a bucket's version is at least the version of every key that hashes to it.
 *
 * <p>Locks are not reentrant. Callers lock a sorted, duplicate-free set of buckets (see {@link
 * BucketSet}), which rules out deadlock between commits.
 */
public final class VersionTable {
  static final int CHUNK_BITS = 12;
  public static final int CHUNK_SIZE = 1 << CHUNK_BITS;
  private static final int CHUNK_MASK = CHUNK_SIZE - 1;

  private static final long LOCKED = 1L << 63;
  private static final long WAITERS = 1L << 62;
  private static final long VERSION_MASK = WAITERS - 1;
  /** Spins before a contended lock parks; a holder usually releases within one RocksDB write. */
  private static final int SPINS = 128;
  /** Waiters park on one of these monitors, chosen by bucket. */
  private static final int MONITOR_STRIPES = 64;

  private static final VarHandle CHUNKS = MethodHandles.arrayElementVarHandle(long[][].class);
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

  private final int buckets;
  private final long[][] chunks;
  private final Object[] monitors = new Object[MONITOR_STRIPES];

  public VersionTable(int buckets) {
    if (buckets < 1) {
      throw new IllegalArgumentException("buckets must be positive: " + buckets);
    }
    this.buckets = buckets;
    this.chunks = new long[(buckets + CHUNK_SIZE - 1) >>> CHUNK_BITS][];
    for (int i = 0; i < monitors.length; i++) {
      monitors[i] = new Object();
    }
  }

  int buckets() {
    return buckets;
  }

  /**
   * The bucket of a {@link KeyHash}, from its low 32 bits, spread uniformly over any bucket count
   * (not only powers of two). Keys with equal hashes share a bucket.
   */
  public int bucketOf(long hash) {
    return (int) (((hash & 0xFFFF_FFFFL) * buckets) >>> 32);
  }

  /** The version of a bucket; 0 when nothing was ever written there. */
  public long version(int bucket) {
    long[] chunk = (long[]) CHUNKS.getAcquire(chunks, bucket >>> CHUNK_BITS);
    return chunk == null ? 0L : ((long) SLOT.getVolatile(chunk, bucket & CHUNK_MASK)) & VERSION_MASK;
  }

  /**
   * Record a write at {@code version} in a bucket the caller holds locked, or (serial policy) under
   * the caller's database-wide commit lock. Versions never move backwards.
   */
  public void stampLocked(int bucket, long version) {
    long[] chunk = chunkFor(bucket);
    int i = bucket & CHUNK_MASK;
    long s = (long) SLOT.getVolatile(chunk, i);
    if ((s & VERSION_MASK) < version) {
      // Flags are kept: only the lock holder changes the version, but waiters may set WAITERS.
      while (!SLOT.compareAndSet(chunk, i, s, (s & ~VERSION_MASK) | version)) {
        s = (long) SLOT.getVolatile(chunk, i);
      }
    }
  }

  /** Take a bucket's lock, spinning briefly and then waiting. Not interruptible (see below). */
  public void lock(int bucket) {
    long[] chunk = chunkFor(bucket);
    int i = bucket & CHUNK_MASK;
    for (int spins = 0; ; spins++) {
      long s = (long) SLOT.getVolatile(chunk, i);
      if ((s & LOCKED) == 0) {
        if (SLOT.compareAndSet(chunk, i, s, s | LOCKED)) {
          return;
        }
      } else if (spins < SPINS) {
        Thread.onSpinWait();
      } else {
        awaitUnlock(chunk, i, bucket);
        spins = 0;
      }
    }
  }

  /** Release a bucket's lock taken with {@link #lock(int)}. */
  public void unlock(int bucket) {
    long[] chunk = chunkFor(bucket);
    int i = bucket & CHUNK_MASK;
    long s;
    do {
      s = (long) SLOT.getVolatile(chunk, i);
    } while (!SLOT.compareAndSet(chunk, i, s, s & VERSION_MASK));
    if ((s & WAITERS) != 0) {
      Object monitor = monitors[bucket & (MONITOR_STRIPES - 1)];
      synchronized (monitor) {
        monitor.notifyAll();
      }
    }
  }

  /**
   * Returns once every bucket locked at the call has been released at least once: every commit
   * that held its locks then has finished. Takes and drops each such lock, holding none while
   * waiting for another, so it cannot deadlock with commits (which lock in sorted order). Chunks
   * and slots are read with volatile semantics, after the caller's volatile write (see {@link
   * OrderedWrites#enterScanning}).
   */
  void awaitLockHolders() {
    for (int c = 0; c < chunks.length; c++) {
      long[] chunk = (long[]) CHUNKS.getVolatile(chunks, c);
      for (int i = 0; chunk != null && i < chunk.length; i++) {
        if (((long) SLOT.getVolatile(chunk, i) & LOCKED) != 0) {
          int bucket = (c << CHUNK_BITS) + i;
          lock(bucket);
          unlock(bucket);
        }
      }
    }
  }

  /** Chunks allocated so far; a measure of the table's memory. */
  public int allocatedChunks() {
    int n = 0;
    for (int c = 0; c < chunks.length; c++) {
      if (CHUNKS.getAcquire(chunks, c) != null) {
        n++;
      }
    }
    return n;
  }

  /**
   * Wait until the holder releases. The waiter sets WAITERS while it holds the stripe's monitor and
   * waits without letting go of it in between, so the holder's notify (taken under the same
   * monitor after it cleared the flags) cannot slip past. The wait is uninterruptible because a
   * commit that gave up half-way through its sorted locks would have to unwind them; the holder
   * only ever holds a lock across one RocksDB write. An interrupt is kept for the caller.
   */
  private void awaitUnlock(long[] chunk, int i, int bucket) {
    Object monitor = monitors[bucket & (MONITOR_STRIPES - 1)];
    boolean interrupted = false;
    synchronized (monitor) {
      while (true) {
        long s = (long) SLOT.getVolatile(chunk, i);
        if ((s & LOCKED) == 0) {
          break;
        }
        if ((s & WAITERS) == 0 && !SLOT.compareAndSet(chunk, i, s, s | WAITERS)) {
          continue;
        }
        try {
          monitor.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private long[] chunkFor(int bucket) {
    int c = bucket >>> CHUNK_BITS;
    long[] chunk = (long[]) CHUNKS.getAcquire(chunks, c);
    if (chunk == null) {
      int size = Math.min(CHUNK_SIZE, buckets - (c << CHUNK_BITS));
      long[] fresh = new long[size];
      Object witness = CHUNKS.compareAndExchangeRelease(chunks, c, null, fresh);
      chunk = witness == null ? fresh : (long[]) witness;
    }
    return chunk;
  }
}
