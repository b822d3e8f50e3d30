package io.commitlane.storage.internal.commit;

import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.DatabaseStoppedException;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreClaims;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

/**
 * Validates and writes commits for one database: lock the commit's buckets (sorted) or the serial
 * commit lock, check per key that nothing the commit read (and, under {@link BlindWrites#CONFLICT},
 * wrote) was written after its baseline, run the hook, write, then stamp the written buckets and
 * record the written keys with a fresh commit-clock value, unlock.
 *
 * <p>A key is checked in two steps. Its bucket's version ({@link VersionTable}) is the cheap first
 * check: a bucket not written since the baseline cannot hold a conflict. When the bucket is newer,
 * {@link RecentWrites} decides for the key itself, as RocksDB does; only when it no longer reaches
 * back to the baseline (it forgot that range) is the conflict assumed. So transactions whose key
 * sets are disjoint never conflict, whatever the bucket count: buckets are lock stripes.
 *
 * <p>The commit clock stands in for RocksDB sequence numbers (no JNI call per commit). It is sound
 * because a transaction joins {@link LiveBaselines}, then reads the clock (its baseline), then
 * takes its snapshot; and a committer advances the clock only after its write returned, and stamps
 * the key's bucket and records the key with that value before it unlocks the bucket. A write the
 * snapshot did not see therefore carries a version above the baseline, in the bucket and in the
 * record, and a validator of that key holds the same bucket lock, so it sees both. Whatever the
 * record drops raises its floor, so for an older baseline it answers "unknown", never "not
 * written"; it drops freely only what is at or below the oldest live baseline, which no live
 * transaction can ask about. A write the snapshot did see may be stamped above the baseline too
 * (the stamp comes after the write); that is a false conflict, never a missed one.
 */
public final class CommitPath {
  /** What writes a validated commit to RocksDB. */
  public interface Writer {
    void write(WriteBuffer writes);

    /** Write several commits' buffers atomically, in order (a later write to a key wins). */
    void writeAll(List<WriteBuffer> writes);
  }

  /**
   * The baseline of a transaction that read nothing from the database (it took no snapshot; a
   * transaction's baseline is taken at its first read). Its writes depend on no database state,
   * so it is validated as of its validation, under its locks, where nothing can be newer: under
   * either {@link BlindWrites} setting it never conflicts, and it is ordered after everything
   * committed before it (in a merged group, after the members before it).
   */
  public static final long READ_NOTHING = -1;

  private final VersionTable table;
  /** One commit at a time under OccValidation.SERIAL; a semaphore, not a lock: a two-lane commit releases it on another thread. */
  private final Semaphore serialLock;
  private final AtomicLong clock = new AtomicLong(1);
  private final LiveBaselines live = new LiveBaselines(clock::get);
  private final RecentWrites recent = new RecentWrites(live::oldest);
  /** Phantom protection for tracked scans; off (one volatile read per commit) while no transaction scans. */
  private final OrderedWrites ordered;
  private volatile Writer writer;
  private final Hooks hooks;
  /** Set once a failed commit could not be undone: every later commit is refused until the database is reopened. */
  private volatile CommitOutcomeUnknownException stopped;
  private final CommitEvents events;
  public final LongAdder commits = new LongAdder();
  public final LongAdder conflicts = new LongAdder();
  public final LongAdder failures = new LongAdder();
  public final LongAdder writes = new LongAdder();
  public final LongAdder groups = new LongAdder();
  public final LongAdder groupMembers = new LongAdder();
  public final LongAdder groupConflicts = new LongAdder();

  private final boolean validateWrites;

  public CommitPath(VersionTable table, OccValidation validation, BlindWrites blindWrites, Writer writer, Hooks hooks,
      CommitEvents events) {
    this.table = table;
    this.events = events;
    this.validateWrites = blindWrites == BlindWrites.CONFLICT;
    this.serialLock = validation == OccValidation.SERIAL ? new Semaphore(1) : null;
    this.writer = writer;
    this.hooks = hooks;
    this.ordered = new OrderedWrites(this::quiesce, clock::get, live::oldest);
  }

  /** Tests: wrap the RocksDB writer, for example to fail a write after validation. */
  public void interceptWrites(UnaryOperator<Writer> wrap) {
    writer = wrap.apply(writer);
  }

  /**
   * Register a transaction that is about to read its baseline; read {@link #baseline()} after this.
   * Returns the generation to pass to {@link #leaveLive} once the transaction's commit or abort is over.
   */
  public long enterLive() {
    return live.enter();
  }

  public void leaveLive(long generation) {
    live.leave(generation);
  }

  /** The clock value a transaction validates against; read it after {@link #enterLive} and before taking a snapshot. */
  public long baseline() {
    return clock.get();
  }

  public int bucketOf(Store store, byte[] key) {
    return table.bucketOf(KeyHash.of(store.id(), key));
  }

  /** The recent-writes record, for stats and tests. */
  public RecentWrites recentWrites() {
    return recent;
  }

  /** The ordered record behind scanned intervals, for transactions (enter and leave) and stats. */
  public OrderedWrites orderedWrites() {
    return ordered;
  }

  /** Returns once every commit holding its locks now has released them (turning the ordered record on waits for this). */
  private void quiesce() {
    if (serialLock != null) {
      serialLock.acquireUninterruptibly();
      serialLock.release();
    } else {
      table.awaitLockHolders();
    }
  }

  /** Validate and write one commit. Throws {@link ConflictException} when validation fails. */
  public void commit(PendingCommit c) {
    write(prepare(c));
  }

  /**
   * A commit validated and logged under its locks, not yet written: {@link #write} or {@link
   * #abandon} it exactly once, on any thread (the bucket locks are not owned by a thread, the
   * serial lock is a semaphore). Until then it holds its locks, so commits to its keys wait.
   */
  public static final class Prepared {
    public final PendingCommit commit;
    private final BucketSet locked;
    private final int[] writeBuckets;
    private final boolean published;
    /** Whether the hooks' before-write steps ran (a transactional commit): a failure must undo them. */
    private final boolean hooked;

    private Prepared(PendingCommit commit, BucketSet locked, int[] writeBuckets, boolean published, boolean hooked) {
      this.commit = commit;
      this.locked = locked;
      this.writeBuckets = writeBuckets;
      this.published = published;
      this.hooked = hooked;
    }
  }

  /**
   * The first half of a commit: lock, validate, run the hooks' before-write steps (the log
   * append). Throws {@link ConflictException} when validation fails; on any failure nothing is
   * held and nothing stays logged.
   */
  public Prepared prepare(PendingCommit c) {
    WriteBuffer w = c.writes();
    BucketSet locked = new BucketSet(w.size() + (c.reads() == null ? 0 : c.reads().size()));
    int[] writeBuckets = bucketsOf(c, locked);
    locked.seal();

    boolean published = false;
    CommitValidatedEvent validation = events.beginValidation(c);
    lock(locked);
    try {
      checkNotStopped();
      if (ordered.active()) { // read under the locks: see OrderedWrites for why
        published = ordered.publish(c, c); // a lone commit holds no fence yet: it always publishes
      }
      if (c.isTransactional()) {
        // Under BlindWrites.ORDERED only the reads are checked; the write buckets are still
        // locked above, which keeps commits to a key (and their log records) in order.
        if (conflictsInTable(c, writeBuckets) || conflictsInRanges(c, c)) {
          throw conflict(c, validation, 1);
        }
        beforeWrite(c, validation, 1);
      }
      return new Prepared(c, locked, writeBuckets, published, c.isTransactional());
    } catch (RuntimeException | Error e) {
      if (!(e instanceof ConflictException)) {
        failures.increment();
      }
      CommitOutcomeUnknownException unknown = e instanceof CommitOutcomeUnknownException u ? stop(u) : null;
      release(c, locked, published, false);
      if (unknown != null) {
        throw unknown;
      }
      throw e;
    }
  }

  /** The second half of a commit: write it to RocksDB, stamp its version, release its locks. */
  public void write(Prepared p) {
    PendingCommit c = p.commit;
    WriteBuffer w = c.writes();
    boolean written = false;
    boolean recorded = false;
    CommitWrittenEvent write = null;
    try {
      write = events.beginWrite(c);
      if (w.size() > 0) {
        writer.write(w);
      }
      written = true;
      events.written(write, c, CommitEvents.WRITTEN, 1);
      long version = clock.incrementAndGet();
      stamp(w, p.writeBuckets, version);
      if (p.published) {
        ordered.committed(c, version);
        recorded = true;
      }
      c.version(version);
    } catch (RuntimeException | Error e) {
      failures.increment();
      CommitOutcomeUnknownException unknown = e instanceof CommitOutcomeUnknownException u ? stop(u) : null;
      if (p.hooked && !written) {
        events.written(write, c, CommitEvents.FAILED, 1);
        unknown = undo(c, e);
      }
      if (unknown != null) {
        throw unknown;
      }
      throw e;
    } finally {
      release(c, p.locked, p.published, recorded);
    }
    if (c.isTransactional()) {
      commits.increment();
      hooks.afterWriteStages(c);
    } else {
      writes.increment();
    }
  }

  /**
   * A prepared commit that will not be written (its pipeline closed under it): undo what its
   * hooks did and release its locks. Returns what its caller should hear: {@code cause}, or the
   * unknown outcome when the hooks could not undo (the database then stops taking commits).
   */
  public Throwable abandon(Prepared p, Throwable cause) {
    failures.increment();
    CommitOutcomeUnknownException unknown = null;
    try {
      if (p.hooked) {
        unknown = undo(p.commit, cause);
      }
    } finally {
      release(p.commit, p.locked, p.published, false);
    }
    return unknown != null ? unknown : cause;
  }

  private void release(PendingCommit c, BucketSet locked, boolean published, boolean recorded) {
    try {
      if (published && !recorded) {
        ordered.abandon(c);
      }
      if (c.scans() != null) {
        ordered.releaseFences(c);
      }
    } finally {
      unlock(locked);
    }
  }

  /**
   * Validate several transactions in order and write the survivors with one RocksDB write. Each
   * member is checked against committed writes and against the keys written by the members before
   * it that survived: every member's snapshot predates the group's write, so touching a key an
   * earlier member writes is a conflict (for a blind write only under {@link BlindWrites#CONFLICT}).
   * A member that conflicts or whose hook fails fails alone; a failed write fails every survivor
   * and leaves nothing visible. Survivors get consecutive versions in member order, so stamps, log
   * positions and the batch's write order all agree.
   *
   * @param failures filled with each failed member's cause; null entries committed
   */
  public void commitGroup(List<PendingCommit> members, Throwable[] failures) {
    int n = members.size();
    int[][] writeBuckets = new int[n][];
    int total = 0;
    for (PendingCommit c : members) {
      total += c.writes().size() + (c.reads() == null ? 0 : c.reads().size());
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
    // Members share one token: a later member never waits for an earlier member's fence.
    Object token = ordered.active() ? new Object() : null;
    try {
      checkNotStopped();
      WrittenKeys groupWrites = new WrittenKeys(total);
      for (int i = 0; i < n; i++) {
        PendingCommit c = members.get(i);
        if (admitToGroup(c, writeBuckets[i], groupWrites, failures, i, n, token)) {
          WriteBuffer w = c.writes();
          for (int j = 0; j < w.size(); j++) {
            groupWrites.add(w.hash(j));
          }
          buffers.add(c.writes());
          survivors[survived++] = i;
        }
      }
      if (survived > 0 && !writeGroup(buffers, members, survivors, survived, failures)) {
        abandonRanges(token, members, survivors, survived);
        survived = 0;
      }
      long first = clock.getAndAdd(survived) + 1;
      for (int k = 0; k < survived; k++) {
        int i = survivors[k];
        long version = first + k;
        stamp(members.get(i).writes(), writeBuckets[i], version);
        if (token != null) {
          ordered.committed(members.get(i), version);
        }
        members.get(i).version(version);
      }
    } finally {
      if (token != null) {
        ordered.releaseFences(token);
      }
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
    CommitWrittenEvent[] written = beginGroupWrite(members, survivors, survived);
    try {
      writer.writeAll(buffers);
      endGroupWrite(written, members, survivors, CommitEvents.WRITTEN);
      return true;
    } catch (RuntimeException | Error e) {
      endGroupWrite(written, members, survivors, CommitEvents.FAILED);
      for (int k = 0; k < survived; k++) {
        int i = survivors[k];
        this.failures.increment();
        // Every survivor is undone, even after one that could not be: its own outcome says which.
        CommitOutcomeUnknownException unknown = undo(members.get(i), e);
        failures[i] = unknown != null ? unknown : e;
      }
      return false;
    }
  }

  /** One write event per surviving member (they share the write), or null when the event is disabled. */
  private CommitWrittenEvent[] beginGroupWrite(List<PendingCommit> members, int[] survivors, int survived) {
    if (!CommitEvents.writesEnabled()) {
      return null;
    }
    CommitWrittenEvent[] written = new CommitWrittenEvent[survived];
    for (int k = 0; k < survived; k++) {
      written[k] = events.beginWrite(members.get(survivors[k]));
    }
    return written;
  }

  private void endGroupWrite(CommitWrittenEvent[] written, List<PendingCommit> members, int[] survivors, String outcome) {
    for (int k = 0; written != null && k < written.length; k++) {
      events.written(written[k], members.get(survivors[k]), outcome, members.size());
    }
  }

  /**
   * Validate and run the before-write steps of one group member; false when it failed. (Its
   * validation event does not include the lock wait: the group took its locks before.)
   */
  private boolean admitToGroup(PendingCommit c, int[] writeBuckets, WrittenKeys groupWrites, Throwable[] failures,
      int i, int groupSize, Object token) {
    boolean published = false;
    CommitValidatedEvent validation = events.beginValidation(c);
    try {
      if (token != null) {
        published = ordered.publish(c, token);
        if (!published) { // an earlier member's fence is the group's: it must not wait for another's
          throw conflict(c, validation, groupSize);
        }
      }
      // The ordered record sees the earlier members' writes as pending: scanning over one conflicts.
      if (conflictsInTable(c, writeBuckets) || conflictsInGroup(c, groupWrites) || conflictsInRanges(c, token)) {
        throw conflict(c, validation, groupSize);
      }
      // Per member, before the merge: a member writing a store being dropped fails alone, not the group.
      StoreClaims.requireWritable(c.writes());
      beforeWrite(c, validation, groupSize);
      return true;
    } catch (RuntimeException | Error e) {
      failures[i] = e;
      if (!(e instanceof ConflictException)) {
        this.failures.increment();
      }
      if (e instanceof CommitOutcomeUnknownException u) {
        stop(u);
      }
      if (published) {
        ordered.abandon(c);
      }
      return false;
    }
  }

  /** A commit that failed validation: counted, its validation event ended; the exception to throw. */
  private ConflictException conflict(PendingCommit c, CommitValidatedEvent validation, int groupSize) {
    conflicts.increment();
    events.validated(validation, c, CommitEvents.CONFLICTED, groupSize);
    return new ConflictException(c.transactionId());
  }

  /**
   * What follows a passed validation, for a lone commit and a group member alike: the validation
   * event, the {@code VALIDATED} stage, the hooks' before-write steps (the log append), then the
   * {@code LOG_APPENDED} stage. The before-write steps unwind their own partial work if a hook
   * throws; if anything after them fails, they are undone here, and the failure thrown is the
   * undo's {@link CommitOutcomeUnknownException} when the undo failed too.
   */
  private void beforeWrite(PendingCommit c, CommitValidatedEvent validation, int groupSize) {
    events.validated(validation, c, CommitEvents.VALIDATED, groupSize);
    hooks.stage(CommitStage.VALIDATED, c);
    LogAppendedEvent append = events.beginAppend(c);
    hooks.beforeWrite(c);
    try {
      events.appended(append, c);
      hooks.stage(CommitStage.LOG_APPENDED, c);
    } catch (RuntimeException | Error e) {
      CommitOutcomeUnknownException unknown = undo(c, e);
      if (unknown != null) {
        throw unknown;
      }
      throw e;
    }
  }

  /** A group write failed: its survivors' published writes will not be written. */
  private void abandonRanges(Object token, List<PendingCommit> members, int[] survivors, int survived) {
    for (int k = 0; token != null && k < survived; k++) {
      ordered.abandon(members.get(survivors[k]));
    }
  }

  /**
   * Whether a key inside an interval the commit scanned (tracked) was written after its baseline,
   * is being written, or may have been; if not, the intervals stay fenced until the caller
   * releases {@code token}. A transaction that scanned keeps the record on until it leaves, so the
   * record holds every write it must see.
   */
  private boolean conflictsInRanges(PendingCommit c, Object token) {
    ScannedRanges scans = c.scans();
    return scans != null && c.baseline() != READ_NOTHING && ordered.conflicts(c, scans, c.baseline(), token);
  }

  /**
   * The commit failed after its hooks' before-write step: let the hooks undo it. Returns null when
   * they did; otherwise the commit's outcome is unknown (a reopen may replay its log record), so
   * the database stops taking commits (one accepted now could be overwritten by it at the next
   * open) and that is returned, carrying {@code cause} as a suppressed exception.
   */
  private CommitOutcomeUnknownException undo(PendingCommit c, Throwable cause) {
    try {
      hooks.aborted(c, cause);
      return null;
    } catch (RuntimeException | Error undoFailure) {
      CommitOutcomeUnknownException unknown = undoFailure instanceof CommitOutcomeUnknownException u ? u
          : new CommitOutcomeUnknownException(c.transactionId(), "its write failed and a commit hook could not undo"
              + " what it did before the write", undoFailure);
      if (unknown != cause) {
        unknown.addSuppressed(cause);
      }
      return stop(unknown);
    }
  }

  private CommitOutcomeUnknownException stop(CommitOutcomeUnknownException unknown) {
    if (stopped == null) {
      stopped = unknown;
    }
    return unknown;
  }

  /** Under the commit's locks, so a commit waiting for a stopped commit's buckets sees the stop. */
  private void checkNotStopped() {
    CommitOutcomeUnknownException s = stopped;
    if (s != null) {
      throw new DatabaseStoppedException(s);
    }
  }

  /**
   * Whether a key the commit read, or (under {@link BlindWrites#CONFLICT}) wrote, was written by a
   * commit after its baseline, or may have been (the record forgot that far back).
   */
  private boolean conflictsInTable(PendingCommit c, int[] writeBuckets) {
    long baseline = c.baseline();
    if (baseline == READ_NOTHING) {
      return false;
    }
    if (validateWrites) {
      WriteBuffer w = c.writes();
      for (int i = 0; i < writeBuckets.length; i++) {
        if (writtenSince(w.hash(i), writeBuckets[i], baseline)) {
          return true;
        }
      }
    }
    ReadSet reads = c.reads();
    for (int i = 0; reads != null && i < reads.size(); i++) {
      long hash = reads.get(i);
      if (writtenSince(hash, table.bucketOf(hash), baseline)) {
        return true;
      }
    }
    return false;
  }

  /** The bucket first (cheap, and usually enough), then the key itself. The caller holds the bucket's lock. */
  private boolean writtenSince(long hash, int bucket, long baseline) {
    return table.version(bucket) > baseline && recent.check(hash, baseline) != RecentWrites.NOT_WRITTEN;
  }

  private boolean conflictsInGroup(PendingCommit c, WrittenKeys groupWrites) {
    if (c.baseline() == READ_NOTHING) {
      return false;
    }
    boolean hit = false;
    if (validateWrites) {
      WriteBuffer w = c.writes();
      for (int i = 0; !hit && i < w.size(); i++) {
        hit = groupWrites.contains(w.hash(i));
      }
    }
    ReadSet reads = c.reads();
    for (int i = 0; !hit && reads != null && i < reads.size(); i++) {
      hit = groupWrites.contains(reads.get(i));
    }
    if (hit) {
      groupConflicts.increment();
    }
    return hit;
  }

  /** Stamp the written buckets and record the written keys at {@code version}; under the commit's locks. */
  private void stamp(WriteBuffer w, int[] writeBuckets, long version) {
    for (int i = 0; i < writeBuckets.length; i++) {
      table.stampLocked(writeBuckets[i], version);
      recent.record(w.hash(i), version);
    }
  }

  /** The commit's write buckets (one per write, maybe repeated); adds them and its read buckets to {@code locked}. */
  private int[] bucketsOf(PendingCommit c, BucketSet locked) {
    WriteBuffer w = c.writes();
    int[] writeBuckets = new int[w.size()];
    for (int i = 0; i < writeBuckets.length; i++) {
      writeBuckets[i] = table.bucketOf(w.hash(i));
      locked.add(writeBuckets[i]);
    }
    ReadSet reads = c.reads();
    for (int i = 0; reads != null && i < reads.size(); i++) {
      locked.add(table.bucketOf(reads.get(i)));
    }
    return writeBuckets;
  }

  private void lock(BucketSet buckets) {
    if (serialLock != null) {
      serialLock.acquireUninterruptibly();
      return;
    }
    for (int i = 0; i < buckets.size(); i++) {
      table.lock(buckets.get(i));
    }
  }

  private void unlock(BucketSet buckets) {
    if (serialLock != null) {
      serialLock.release();
      return;
    }
    for (int i = buckets.size() - 1; i >= 0; i--) {
      table.unlock(buckets.get(i));
    }
  }
}
