package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.backup.SideFiles;
import io.commitlane.storage.internal.commit.CommitPath;
import io.commitlane.storage.internal.commit.Hooks;
import io.commitlane.storage.internal.commit.KeyHash;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.ReadSet;
import io.commitlane.storage.internal.commit.ScannedRanges;
import io.commitlane.storage.internal.commit.TwoLaneCommits;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.ReadOptions;
import org.rocksdb.Snapshot;

/**
 * An optimistic transaction: reads from one RocksDB snapshot plus its own buffered writes, and
 * is validated at commit against every commit that wrote the keys it touched after its snapshot.
 *
 * <p>{@link #get} tracks the key (read-modify-write is safe); {@link #getUntracked} reads the same
 * snapshot without tracking. The snapshot is taken at the first read that reaches RocksDB, not at
 * {@link Database#begin()}, which narrows the window in which other commits can conflict with it.
 *
 * <p>Not thread-safe: one thread at a time. Always end it: {@link #commitSync()}, {@link #abort()}
 * or {@link #close()} (abort unless committed).
 */
public final class Transaction implements AutoCloseable {
  private static final AtomicLong IDS = new AtomicLong();
  /** The baseline until the first read (see {@link CommitPath#READ_NOTHING}). */
  private static final long NO_BASELINE = CommitPath.READ_NOTHING;
  /** The live-baseline generation when the transaction holds none. */
  private static final long NOT_LIVE = -1;

  /** Where a transaction is in its life. */
  public enum State { OPEN, COMMITTED, ABORTED, FAILED }

  private final Database handle;
  private final SharedDatabase shared;
  private final long id = IDS.incrementAndGet();
  private final WriteBuffer writes = new WriteBuffer(4);
  private ReadSet reads;
  /** Its cursors and scanned intervals; null until its first scan. */
  private TransactionScans scans;
  private long baseline = NO_BASELINE;
  /** Its generation among the live baselines while it holds a baseline that validation may use. */
  private long live = NOT_LIVE;
  private Object tag;
  private String logName;
  private List<byte[]> logEntries = List.of();
  /** Claims taken at admission by a commit pipeline ({@link #claimStores()}); null until then. */
  private StoreClaims claims;
  private State state = State.OPEN;
  /** Validated and logged, waiting for its RocksDB write (a two-lane commit); null otherwise. */
  private CommitPath.Prepared prepared;
  /** Guarded by {@code this}: the handle's close may release them from another thread. */
  private Snapshot snapshot;
  private ReadOptions readOptions;

  static {
    TwoLaneCommits.install(new TwoLaneSeam());
  }

  Transaction(Database handle, SharedDatabase shared) {
    this.handle = handle;
    this.shared = shared;
  }

  public long id() {
    return id;
  }

  public State state() {
    return state;
  }

  public Object tag() {
    return tag;
  }

  /** Label this transaction so stage listeners (the testkit) can pick it out. */
  public Transaction tag(Object tag) {
    this.tag = tag;
    return this;
  }

  public Database database() {
    return handle;
  }

  /** Read a key of the default store; the read is tracked and validated at commit. */
  public byte[] get(byte[] key) {
    return get(handle.defaultStore(), key);
  }

  /** Read a key as of this transaction's snapshot, seeing its own writes; tracked for validation. */
  public byte[] get(Store store, byte[] key) {
    return read(store, key, true);
  }

  /** Like {@link #get} but not validated at commit: a change by another commit is not a conflict. */
  public byte[] getUntracked(Store store, byte[] key) {
    return read(store, key, false);
  }

  public byte[] getUntracked(byte[] key) {
    return getUntracked(handle.defaultStore(), key);
  }

  /** {@link #get} for many keys of a store (null where absent): own writes first, the rest in one RocksDB multi-get; all tracked. */
  public List<byte[]> multiGet(Store store, List<byte[]> keys) {
    requireState();
    handle.requireOwn(store);
    store.requireLive();
    handle.enter();
    try {
      return MultiGet.merged(shared, store, keys, writes, this::snapshotReadOptions, this::track);
    } finally {
      handle.exit();
    }
  }

  public List<byte[]> multiGet(List<byte[]> keys) {
    return multiGet(handle.defaultStore(), keys);
  }

  /**
   * Scan {@code range} in this transaction's snapshot merged with its own writes as they are when
   * the cursor opens. Tracked: a later commit that writes inside the interval the scan covered (up
   * to where it stopped) makes this transaction's commit fail with {@link ConflictException}.
   */
  public Cursor scan(KeyRange range) {
    return openScan(range, true);
  }

  /** Like {@link #scan} but not validated: other commits' inserts and removals are not conflicts (phantoms allowed). */
  public Cursor scanUntracked(KeyRange range) {
    return openScan(range, false);
  }

  /** {@link #scan} into a list, for bounded ranges. */
  public List<KeyValue> list(KeyRange range) {
    return scan(range).toList();
  }

  /** The exact number of keys {@link #scan} shows (up to the range's limit); tracked. */
  public long count(KeyRange range) {
    return scan(range.keysOnly()).countRest();
  }

  public Transaction put(byte[] key, byte[] value) {
    return put(handle.defaultStore(), key, value);
  }

  /**
   * Buffer a write of {@code value} under {@code key}. Both arrays are copied: changing them after
   * this call changes nothing that is committed (as with a RocksDB {@code WriteBatch}).
   */
  public Transaction put(Store store, byte[] key, byte[] value) {
    Objects.requireNonNull(value, "value");
    return buffer(store, key, value.clone());
  }

  public Transaction remove(byte[] key) {
    return remove(handle.defaultStore(), key);
  }

  public Transaction remove(Store store, byte[] key) {
    return buffer(store, key, null);
  }

  /**
   * Name the transaction log this transaction's entries go to. A transaction writes to one log;
   * the log is appended at commit, after validation and under the commit's locks, by the commit
   * hook that the log module installs (storage itself keeps the entries opaque). Throws {@link
   * LogNotAvailableException} when no such hook is installed (a database opened by storage
   * alone), rather than dropping the entries, and {@link ReadOnlyDatabaseException} on a
   * read-only database.
   *
   * @throws IllegalArgumentException if the name is not 1..128 of A-Z a-z 0-9 . _ - or starts
   *     with '.' (it names a directory)
   */
  public Transaction useLog(String name) {
    requireState();
    Objects.requireNonNull(name, "name");
    if (!SideFiles.isLogName(name)) {
      throw new IllegalArgumentException("log name \"" + name + "\" is invalid: use 1..128 of A-Z a-z 0-9 . _ -, not"
          + " starting with '.' (it names a directory under txlog/)");
    }
    if (shared.isReadOnly()) {
      throw new ReadOnlyDatabaseException(shared.path(), "write to transaction log '" + name + "'"); // the reason, not a symptom
    }
    if (!shared.hooks().writesLogs()) {
      throw new LogNotAvailableException(name, shared.path());
    }
    if (logName != null && !logName.equals(name)) {
      throw new IllegalStateException("transaction " + id + " already uses log " + logName + "; one log per transaction");
    }
    logName = name;
    return this;
  }

  /** Add an entry to this transaction's log record (a copy of it); {@link #useLog} first. */
  public Transaction addLogEntry(byte[] entry) {
    requireState();
    Objects.requireNonNull(entry, "entry");
    if (logName == null) {
      throw new IllegalStateException("call useLog(name) before addLogEntry on transaction " + id);
    }
    if (logEntries.isEmpty()) {
      logEntries = new ArrayList<>(2);
    }
    logEntries.add(entry.clone());
    return this;
  }

  /** The log named by {@link #useLog}, or null. */
  public String logName() {
    return logName;
  }

  /**
   * Report a pipeline stage ({@link CommitStage#ADMITTED}, {@link CommitStage#DEQUEUED} or {@link
   * CommitStage#COMPLETED}) of this transaction's commit to the database's stage listeners; for
   * commit pipelines built on storage. Costs a volatile read when no listener is installed. A
   * listener may throw to fail the commit at that stage.
   */
  @InternalApi
  public void reportStage(CommitStage stage) {
    if (stage != CommitStage.ADMITTED && stage != CommitStage.DEQUEUED && stage != CommitStage.COMPLETED) {
      throw new IllegalArgumentException(stage + " is reported by storage itself");
    }
    Hooks hooks = shared.hooks();
    if (hooks.hasListeners()) {
      hooks.stage(stage, new PendingCommit(id, tag, writes, reads, baseline, true, logName, logEntries, null));
    }
  }

  /**
   * For commit pipelines built on storage: claim every named store this transaction writes, at
   * admission, so none of them is physically dropped before this commit ends. From here on the
   * transaction takes no more writes. {@link #commitSync()} releases the claims when it ends
   * (success or failure); a pipeline that never runs it (a full queue, a closed database) calls
   * {@link StoreClaims#release()} itself. Throws {@link StoreDroppedException} if a store it
   * writes was dropped; then nothing is claimed.
   */
  @InternalApi
  public StoreClaims claimStores() {
    requireState();
    if (claims != null) {
      throw new IllegalStateException("transaction " + id + " already claimed its stores (it was admitted for commit)");
    }
    claims = StoreClaims.claim(writes);
    return claims;
  }

  /** Number of writes buffered so far (one per distinct key). */
  public int writeCount() {
    return writes.size();
  }

  /**
   * Validate and write on the calling thread. On {@link ConflictException} nothing was written and
   * the transaction is {@link State#FAILED}; run the work again on a new transaction.
   */
  public CommitResult commitSync() {
    requireState();
    shared.requireWritable("commit");
    handle.enter();
    try {
      PendingCommit c = prepareCommit();
      if (c == null) {
        return new CommitResult(id, 0, null);
      }
      shared.commitPath().commit(c);
      state = State.COMMITTED;
      return new CommitResult(id, c.version(), c.logRecord());
    } catch (RuntimeException | Error e) {
      if (state == State.OPEN) {
        state = State.FAILED;
      }
      throw e;
    } finally {
      leaveLive();
      releaseClaims();
      handle.exit();
    }
  }

  /** The first half of a two-lane commit: see {@link TwoLaneCommits#prepareWrite}. */
  boolean prepareWrite() {
    requireState();
    if (prepared != null) {
      throw new IllegalStateException("transaction " + id + " is already prepared");
    }
    shared.requireWritable("commit");
    handle.enter();
    boolean held = false;
    try {
      PendingCommit c = prepareCommit();
      if (c == null) {
        return false;
      }
      prepared = shared.commitPath().prepare(c);
      held = true;
      return true;
    } catch (RuntimeException | Error e) {
      state = State.FAILED;
      throw e;
    } finally {
      if (!held) {
        endCommit();
      }
    }
  }

  /** The second half of a prepared commit: write it to RocksDB and release its locks. */
  CommitResult writePrepared() {
    CommitPath.Prepared p = takePrepared();
    try {
      shared.commitPath().write(p);
      state = State.COMMITTED;
      return new CommitResult(id, p.commit.version(), p.commit.logRecord());
    } catch (RuntimeException | Error e) {
      state = State.FAILED;
      throw e;
    } finally {
      endCommit();
    }
  }

  /** A prepared commit that will not be written: see {@link TwoLaneCommits#abandonPrepared}. */
  Throwable abandonPrepared(Throwable cause) {
    CommitPath.Prepared p = takePrepared();
    state = State.FAILED;
    try {
      return shared.commitPath().abandon(p, cause);
    } finally {
      endCommit();
    }
  }

  /** Whether {@link #prepareWrite()} prepared it and neither its write nor its abandon ran yet. */
  boolean isPrepared() {
    return prepared != null;
  }

  private CommitPath.Prepared takePrepared() {
    CommitPath.Prepared p = prepared;
    if (p == null) {
      throw new IllegalStateException("transaction " + id + " is not prepared");
    }
    prepared = null;
    return p;
  }

  private void endCommit() {
    try {
      leaveLive();
      releaseClaims();
    } finally {
      handle.exit();
    }
  }

  /**
   * The steps before validation, shared by {@link #commitSync()} and {@link #joinGroup}; the
   * handle is entered. Releases the snapshot and claims the stores (unless a pipeline claimed them
   * at admission: a store dropped from now on waits for this commit). Returns the commit to
   * validate, or null when there is nothing to write or validate (then it is committed already).
   */
  private PendingCommit prepareCommit() {
    releaseSnapshot();
    if (claims == null) {
      claims = StoreClaims.claim(writes);
    }
    ScannedRanges scanned = scans == null ? null : scans.tracked();
    if (writes.size() == 0 && reads == null && scanned == null && logEntries.isEmpty()) {
      state = State.COMMITTED;
      return null;
    }
    if (reads != null) {
      reads.seal();
    }
    return new PendingCommit(id, tag, writes, reads, baseline, true, logName, logEntries, shared.internalStore())
        .scans(scanned);
  }

  /** Key and value bytes buffered so far: what this transaction adds to a merged write group. */
  public long writeBytes() {
    return writes.bytes();
  }

  /**
   * Enter a write group: checks the state, enters the handle (the caller must later call
   * {@link #leaveGroup}) and returns the commit to validate, or null when there is nothing to
   * write or validate (the transaction is then committed already).
   */
  PendingCommit joinGroup(SharedDatabase group) {
    requireState();
    if (shared != group) {
      throw new IllegalArgumentException("transaction " + id + " belongs to database " + shared.path()
          + ", not to " + group.path() + "; a write group holds transactions of one database");
    }
    handle.enter();
    PendingCommit c = null;
    try {
      c = prepareCommit();
      return c;
    } finally {
      if (c == null) {
        leaveLive();
        releaseClaims(); // nothing to commit, or failed: no leaveGroup will follow
        handle.exit();
      }
    }
  }

  /** Its validation is over (or will never run): no longer hold back what the recent-writes record forgets. */
  private void leaveLive() {
    if (live != NOT_LIVE) {
      shared.commitPath().leaveLive(live);
      live = NOT_LIVE;
    }
    if (scans != null) {
      scans.leave();
    }
  }

  private void releaseClaims() {
    if (claims != null) {
      claims.release();
    }
  }

  /** End a group membership begun by {@link #joinGroup} that returned {@code c}; {@code failure} null on success. */
  CommitResult leaveGroup(PendingCommit c, Throwable failure) {
    try {
      if (failure != null) {
        state = State.FAILED;
        return null;
      }
      state = State.COMMITTED;
      return new CommitResult(id, c.version(), c.logRecord());
    } finally {
      leaveLive();
      releaseClaims();
      handle.exit();
    }
  }

  /** Drop the buffered writes and the snapshot. Idempotent once ended. */
  public void abort() {
    if (state != State.OPEN || prepared != null) {
      return; // over, or validated and logged: its write is under way and decides its outcome
    }
    state = State.ABORTED;
    leaveLive();
    if (handle.isClosed()) {
      return; // the handle's close released the snapshot
    }
    handle.enter();
    try {
      releaseSnapshot();
    } finally {
      handle.exit();
    }
  }

  /** Abort unless committed. */
  @Override
  public void close() {
    abort();
  }

  /** Release the snapshot; called by this transaction and by its handle's close. */
  synchronized void releaseSnapshot() {
    if (scans != null) {
      scans.endCursors("its transaction " + id + " ended (committed or aborted)");
    }
    if (snapshot != null) {
      readOptions.close();
      shared.releaseSnapshot(snapshot);
      snapshot.close();
      snapshot = null;
      readOptions = null;
      handle.releasedSnapshot(this);
    }
  }

  private byte[] read(Store store, byte[] key, boolean tracked) {
    requireState();
    handle.requireOwn(store);
    Objects.requireNonNull(key, "key");
    store.requireLive();
    byte[] own = writes.lookup(store, key);
    if (own != null) {
      return own == WriteBuffer.REMOVED ? null : own;
    }
    handle.enter();
    try {
      byte[] value = shared.get(store, snapshotReadOptions(), key);
      if (tracked) {
        track(KeyHash.of(store.id(), key));
      }
      return value;
    } finally {
      handle.exit();
    }
  }

  private void track(long keyHash) {
    if (reads == null) {
      reads = new ReadSet(8);
    }
    reads.add(keyHash);
  }

  /** Announce tracked scans before the first read, so a scan after point reads validates exactly (docs/reads.md). */
  public Transaction expectScans() {
    requireState();
    handle.enter();
    try {
      scans().register();
    } finally {
      handle.exit();
    }
    return this;
  }

  /** Whether a tracked scan ran or was announced (for {@link Database#transact}'s retries). */
  boolean expectsScans() {
    return scans != null && scans.tracked() != null;
  }

  private Cursor openScan(KeyRange range, boolean tracked) {
    requireState();
    return scans().open(range, tracked);
  }

  private TransactionScans scans() {
    return scans == null ? scans = new TransactionScans(handle, shared.commitPath().orderedWrites(), writes, this::scanSnapshot) : scans;
  }

  /**
   * commitlane's own records with keys in {@code [from, to)} as this transaction's snapshot holds
   * them (taking the snapshot if it has none yet), so that what they say agrees exactly with what
   * the transaction reads.
   */
  @InternalApi
  public List<KeyValue> internalRecordsUntracked(byte[] from, byte[] to) {
    requireState();
    try (Cursor c = scans().open(KeyRange.between(from, to).in(shared.internalStore()), false)) {
      return c.toList();
    }
  }

  private synchronized Snapshot scanSnapshot() {
    snapshotReadOptions();
    return snapshot;
  }

  private Transaction buffer(Store store, byte[] key, byte[] value) {
    requireState();
    handle.requireOwn(store);
    Objects.requireNonNull(key, "key");
    if (claims != null) {
      throw new IllegalStateException("transaction " + id + " was admitted for commit; it takes no more writes");
    }
    store.requireLive(); // early: the claim at commit is what guarantees it
    writes.put(store, key.clone(), value); // no baseline: a write made before any read depends on no database state
    return this;
  }

  private synchronized ReadOptions snapshotReadOptions() {
    if (snapshot == null) {
      if (baseline == NO_BASELINE) {
        // Read the clock before the snapshot: see CommitPath for why that order is what makes it sound.
        takeBaseline();
      }
      snapshot = shared.takeSnapshot();
      readOptions = new ReadOptions().setSnapshot(snapshot);
      handle.holdsSnapshot(this);
    }
    return readOptions;
  }

  /** Join the live baselines, then read the clock: in that order, or the record could forget what this transaction needs. */
  private void takeBaseline() {
    CommitPath path = shared.commitPath();
    live = path.enterLive();
    baseline = path.baseline();
  }

  private void requireState() {
    if (state != State.OPEN) {
      throw new IllegalStateException("transaction " + id + " is " + state + "; begin a new one");
    }
    if (prepared != null) {
      throw new IllegalStateException("transaction " + id + " is being committed");
    }
    handle.requireOpen();
  }

  @Override
  public String toString() {
    return "Transaction[" + id + (tag == null ? "" : " " + tag) + ", " + state + "]";
  }
}
