package io.commitlane.storage;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Validates and writes commits for one database: lock the commit's buckets (sorted) or the serial
 * commit lock, check that no bucket the commit touches was written after its baseline, run the
 * hook, write, stamp the written buckets with a fresh commit-clock value, unlock.
 *
 * <p>The commit clock stands in for RocksDB sequence numbers (no JNI call per commit). It is
 * sound because a transaction reads the clock before it takes its snapshot, and a committer
 * advances the clock only after its write returned: a write the snapshot did not see is stamped
 * above the baseline. A write the snapshot did see may be stamped above it too (the stamp comes
 * after the write); that is a false conflict, never a missed one.
 */
final class CommitPath {
  /** What writes a validated commit to RocksDB. */
  interface Writer {
    void write(WriteBuffer writes);
  }

  private final VersionTable table;
  private final ReentrantLock serialLock;
  private final AtomicLong clock = new AtomicLong(1);
  private final Writer writer;
  private final Hooks hooks;
  final LongAdder commits = new LongAdder();
  final LongAdder conflicts = new LongAdder();
  final LongAdder failures = new LongAdder();
  final LongAdder writes = new LongAdder();

  private final boolean validateWrites;

  CommitPath(VersionTable table, OccValidation validation, BlindWrites blindWrites, Writer writer, Hooks hooks) {
    this.table = table;
    this.validateWrites = blindWrites == BlindWrites.CONFLICT;
    this.serialLock = validation == OccValidation.SERIAL ? new ReentrantLock() : null;
    this.writer = writer;
    this.hooks = hooks;
  }

  /** The clock value a transaction validates against; read it before taking a snapshot. */
  long baseline() {
    return clock.get();
  }

  int bucketOf(Store store, byte[] key) {
    return table.bucketOf(KeyHash.of(store.id(), key));
  }

  /** Validate and write one commit. Throws {@link ConflictException} when validation fails. */
  void commit(PendingCommit c) {
    WriteBuffer w = c.writes();
    int[] writeBuckets = new int[w.size()];
    BucketSet locked = new BucketSet(w.size() + (c.readBuckets() == null ? 0 : c.readBuckets().size()));
    for (int i = 0; i < writeBuckets.length; i++) {
      writeBuckets[i] = table.bucketOf(w.hash(i));
      locked.add(writeBuckets[i]);
    }
    if (c.readBuckets() != null) {
      for (int i = 0; i < c.readBuckets().size(); i++) {
        locked.add(c.readBuckets().get(i));
      }
    }
    locked.seal();

    boolean hooked = false;
    boolean written = false;
    lock(locked);
    try {
      if (c.isTransactional()) {
        // Under BlindWrites.ORDERED only the read buckets are checked; the write buckets are
        // still locked above, which keeps commits to a key (and their log records) in order.
        if (validateWrites ? conflicts(locked, c.baseline()) : c.readBuckets() != null && conflicts(c.readBuckets(), c.baseline())) {
          conflicts.increment();
          throw new ConflictException(c.transactionId());
        }
        hooks.stage(CommitStage.VALIDATED, c);
        hooks.beforeWrite(c); // unwinds its own partial work if a hook throws
        hooked = true;
        hooks.stage(CommitStage.LOG_APPENDED, c);
      }
      if (w.size() > 0) {
        writer.write(w);
      }
      written = true;
      long version = clock.incrementAndGet();
      for (int b : writeBuckets) {
        table.stampLocked(b, version);
      }
      c.version(version);
    } catch (RuntimeException | Error e) {
      if (!(e instanceof ConflictException)) {
        failures.increment();
      }
      if (hooked && !written) {
        hooks.aborted(c, e);
      }
      throw e;
    } finally {
      unlock(locked);
    }
    if (c.isTransactional()) {
      commits.increment();
      hooks.afterWriteStages(c);
    } else {
      writes.increment();
    }
  }

  private boolean conflicts(BucketSet buckets, long baseline) {
    for (int i = 0; i < buckets.size(); i++) {
      if (table.version(buckets.get(i)) > baseline) {
        return true;
      }
    }
    return false;
  }

  private void lock(BucketSet buckets) {
    if (serialLock != null) {
      serialLock.lock();
      return;
    }
    for (int i = 0; i < buckets.size(); i++) {
      table.lock(buckets.get(i));
    }
  }

  private void unlock(BucketSet buckets) {
    if (serialLock != null) {
      serialLock.unlock();
      return;
    }
    for (int i = buckets.size() - 1; i >= 0; i--) {
      table.unlock(buckets.get(i));
    }
  }
}
