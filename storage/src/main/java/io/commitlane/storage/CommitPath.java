package io.commitlane.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
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

    /** Write several commits' buffers atomically, in order (a later write to a key wins). */
    void writeAll(List<WriteBuffer> writes);
  }

  private final VersionTable table;
  private final ReentrantLock serialLock;
  private final AtomicLong clock = new AtomicLong(1);
  private volatile Writer writer;
  private final Hooks hooks;
  final LongAdder commits = new LongAdder();
  final LongAdder conflicts = new LongAdder();
  final LongAdder failures = new LongAdder();
  final LongAdder writes = new LongAdder();
  final LongAdder groups = new LongAdder();
  final LongAdder groupMembers = new LongAdder();
  final LongAdder groupConflicts = new LongAdder();

  private final boolean validateWrites;

  CommitPath(VersionTable table, OccValidation validation, BlindWrites blindWrites, Writer writer, Hooks hooks) {
    this.table = table;
    this.validateWrites = blindWrites == BlindWrites.CONFLICT;
    this.serialLock = validation == OccValidation.SERIAL ? new ReentrantLock() : null;
    this.writer = writer;
    this.hooks = hooks;
  }

  /** Tests: wrap the RocksDB writer, for example to fail a write after validation. */
  void interceptWrites(UnaryOperator<Writer> wrap) {
    writer = wrap.apply(writer);
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
    BucketSet locked = new BucketSet(w.size() + (c.readBuckets() == null ? 0 : c.readBuckets().size()));
    int[] writeBuckets = bucketsOf(c, locked);
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

  /**
   * Validate several transactions in order and write the survivors with one RocksDB write. Each
   * member is checked against the version table and against the writes of the members before it
   * that survived: every member's snapshot predates the group's write, so touching a bucket an
   * earlier member writes is a conflict (for a blind write only under {@link BlindWrites#CONFLICT}).
   * A member that conflicts or whose hook fails fails alone; a failed write fails every survivor
   * and leaves nothing visible. Survivors get consecutive versions in member order, so stamps, log
   * positions and the batch's write order all agree.
   *
   * @param failures filled with each failed member's cause; null entries committed
   */
  void commitGroup(List<PendingCommit> members, Throwable[] failures) {
    int n = members.size();
    int[][] writeBuckets = new int[n][];
    int total = 0;
    for (PendingCommit c : members) {
      total += c.writes().size() + (c.readBuckets() == null ? 0 : c.readBuckets().size());
    }
    BucketSet locked = new BucketSet(total);
    for (int i = 0; i < n; i++) {
      writeBuckets[i] = bucketsOf(members.get(i), locked);
    }
    locked.seal();

    List<WriteBuffer> buffers = new ArrayList<>(n);
    int[] survivors = new int[n];
    int survived = 0;
    lock(locked);
    try {
      WrittenBuckets groupWrites = new WrittenBuckets(total);
      for (int i = 0; i < n; i++) {
        PendingCommit c = members.get(i);
        if (admitToGroup(c, writeBuckets[i], groupWrites, failures, i)) {
          for (int b : writeBuckets[i]) {
            groupWrites.add(b);
          }
          buffers.add(c.writes());
          survivors[survived++] = i;
        }
      }
      if (survived > 0 && !writeGroup(buffers, members, survivors, survived, failures)) {
        survived = 0;
      }
      long first = clock.getAndAdd(survived) + 1;
      for (int k = 0; k < survived; k++) {
        int i = survivors[k];
        long version = first + k;
        for (int b : writeBuckets[i]) {
          table.stampLocked(b, version);
        }
        members.get(i).version(version);
      }
    } finally {
      unlock(locked);
    }
    groups.increment();
    groupMembers.add(n);
    for (int k = 0; k < survived; k++) {
      int i = survivors[k];
      commits.increment();
      try {
        hooks.afterWriteStages(members.get(i));
      } catch (RuntimeException e) {
        failures[i] = e; // written, but a listener failed it: as for a lone commit, a lost ack
      }
    }
  }

  /** One write for the whole group; if it fails, every survivor fails with the cause and nothing was written. */
  private boolean writeGroup(List<WriteBuffer> buffers, List<PendingCommit> members, int[] survivors, int survived,
      Throwable[] failures) {
    try {
      writer.writeAll(buffers);
      return true;
    } catch (RuntimeException | Error e) {
      for (int k = 0; k < survived; k++) {
        int i = survivors[k];
        failures[i] = e;
        this.failures.increment();
        hooks.aborted(members.get(i), e);
      }
      return false;
    }
  }

  /** Validate and run the before-write steps of one group member; false when it failed. */
  private boolean admitToGroup(PendingCommit c, int[] writeBuckets, WrittenBuckets groupWrites, Throwable[] failures,
      int i) {
    boolean hooked = false;
    try {
      if (conflictsInTable(c, writeBuckets) || conflictsInGroup(c, writeBuckets, groupWrites)) {
        conflicts.increment();
        throw new ConflictException(c.transactionId());
      }
      // Per member, before the merge: a member writing a store being dropped fails alone, not the group.
      StoreClaims.requireWritable(c.writes());
      hooks.stage(CommitStage.VALIDATED, c);
      hooks.beforeWrite(c);
      hooked = true;
      hooks.stage(CommitStage.LOG_APPENDED, c);
      return true;
    } catch (RuntimeException | Error e) {
      failures[i] = e;
      if (!(e instanceof ConflictException)) {
        this.failures.increment();
      }
      if (hooked) {
        hooks.aborted(c, e);
      }
      return false;
    }
  }

  private boolean conflictsInTable(PendingCommit c, int[] writeBuckets) {
    long baseline = c.baseline();
    if (validateWrites) {
      for (int b : writeBuckets) {
        if (table.version(b) > baseline) {
          return true;
        }
      }
    }
    BucketSet reads = c.readBuckets();
    return reads != null && conflicts(reads, baseline);
  }

  private boolean conflictsInGroup(PendingCommit c, int[] writeBuckets, WrittenBuckets groupWrites) {
    boolean hit = false;
    if (validateWrites) {
      for (int b : writeBuckets) {
        hit |= groupWrites.contains(b);
      }
    }
    BucketSet reads = c.readBuckets();
    for (int i = 0; !hit && reads != null && i < reads.size(); i++) {
      hit = groupWrites.contains(reads.get(i));
    }
    if (hit) {
      groupConflicts.increment();
    }
    return hit;
  }

  /** The commit's write buckets (one per write, maybe repeated); adds them and its read buckets to {@code locked}. */
  private int[] bucketsOf(PendingCommit c, BucketSet locked) {
    WriteBuffer w = c.writes();
    int[] writeBuckets = new int[w.size()];
    for (int i = 0; i < writeBuckets.length; i++) {
      writeBuckets[i] = table.bucketOf(w.hash(i));
      locked.add(writeBuckets[i]);
    }
    BucketSet reads = c.readBuckets();
    for (int i = 0; reads != null && i < reads.size(); i++) {
      locked.add(reads.get(i));
    }
    return writeBuckets;
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
