package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.StageListener;
import io.commitlane.storage.internal.commit.WriteBuffer;
import io.commitlane.storage.internal.rocks.LifecycleGate;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * A handle on an embedded RocksDB database with optimistic transactions validated in Java.
 *
 * <p>Every open of a path in this process shares one native handle; each {@code Database} is a
 * reference to it and is closed on its own. Thread-safe: many threads may commit through one
 * handle. Transactions themselves belong to one thread at a time.
 *
 * <pre>{@code
 * try (Database db = Database.open(dir)) {
 *   long total = db.transact(txn -> {
 *     long n = Codec.toLong(txn.get(key)) + 1;   // a tracked read: validated at commit
 *     txn.put(key, Codec.fromLong(n));
 *     return n;
 *   });                                          // retried on conflict, 3 retries by default
 * }
 * }</pre>
 */
public final class Database implements AutoCloseable {
  /** Retries {@link #transact(TransactionFunction)} makes after the first attempt conflicts. */
  public static final int DEFAULT_MAX_RETRIES = 3;

  private final SharedDatabase shared;
  private final LifecycleGate gate = new LifecycleGate();
  /** Transactions of this handle that hold a RocksDB snapshot, released if the handle closes first. */
  private final Set<Transaction> snapshotHolders = ConcurrentHashMap.newKeySet();
  /** Cursors of this handle still open: their native iterators are freed before the handle lets the database go. */
  private final Set<Cursor> openCursors = ConcurrentHashMap.newKeySet();
  /** Pauses of background work taken through this handle and not ended yet: its close ends them. */
  private final Set<Registration> pauses = ConcurrentHashMap.newKeySet();
  private final Store defaultStore;
  private final InternalRecords internalRecords;

  private Database(SharedDatabase shared) {
    this.shared = shared;
    this.internalRecords = new InternalRecords(this, shared);
    this.defaultStore = shared.stores().existingStore(Store.DEFAULT);
  }

  /** Open (creating if missing) with {@link DatabaseOptions#defaults()}. */
  public static Database open(Path path) {
    return open(path, DatabaseOptions.defaults());
  }

  public static Database open(Path path, DatabaseOptions options) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(options, "options");
    return new Database(DatabaseRegistry.acquire(path, options));
  }

  /**
   * Open an existing database read-only (RocksDB's {@code openReadOnly}): reads, scans, counts and
   * stats work; commits, writes, flushes, compactions, store changes, checkpoints and backups fail
   * with {@link ReadOnlyDatabaseException} (a read-only handle cannot flush, so a copy could miss
   * data). It takes no lock, so it may sit beside a live process (it sees the data as of this
   * open, as RocksDB's flushed files and WAL held it), and it replays no transaction log and
   * writes no file. Refused with {@link NotADatabaseException} where there is no database, and
   * with {@link PathInUseException} while the path is open for writing in this process.
   */
  public static Database openReadOnly(Path path) {
    return openReadOnly(path, DatabaseOptions.defaults());
  }

  /**
   * {@link #openReadOnly(Path)} with the settings of {@code options} (its RocksDB tuning and block
   * cache); its stores to create and {@code createIfMissing} are ignored: a read-only open creates
   * nothing.
   */
  public static Database openReadOnly(Path path, DatabaseOptions options) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(options, "options");
    return new Database(DatabaseRegistry.acquire(path, options.withCreateIfMissing(false), true));
  }

  /** Whether this database was opened with {@link #openReadOnly}. */
  public boolean isReadOnly() {
    return shared.isReadOnly();
  }

  /**
   * A consistent copy of this database at {@code target}, which must not exist: RocksDB's
   * checkpoint (table files hard-linked where the file system allows, so it costs little space
   * until the source compacts them away), commitlane's own records, the store-drop records and
   * every transaction log. Commits go on meanwhile. Opened (and so replayed), the copy holds a
   * prefix of commit order that contains every commit acknowledged before this call. Blocks the
   * caller for the copy: {@code CommitlaneDatabase.checkpoint} runs it on the lifecycle dispatcher.
   * See docs/operations.md.
   *
   * @throws CheckpointException if the target exists, or the copy failed (a partial copy is removed)
   */
  public CheckpointInfo checkpoint(Path target) {
    Objects.requireNonNull(target, "target");
    enter();
    try {
      return Checkpoints.create(shared, target);
    } finally {
      exit();
    }
  }

  /**
   * The module that writes transaction logs installs how checkpoints and backups copy them
   * consistently with RocksDB's files; without one, log files are copied as they are (nothing
   * writes them then). Returns what removes it.
   */
  @InternalApi
  public Registration setLogCapture(LogCapture capture) {
    Objects.requireNonNull(capture, "capture");
    shared.hooks().logCapture(capture);
    return () -> shared.hooks().logCapture(null);
  }

  /**
   * Delete the database at {@code path}: RocksDB's files (those its manifest names or whose content
   * RocksDB wrote, not whatever has a RocksDB-like name) and what commitlane keeps beside them
   * (transaction logs, store-drop records). Files of anyone else in the directory stay, and so does
   * the directory then. Refused with {@link PathInUseException} while any handle of the path is
   * open in this process or another process holds RocksDB's lock, and with {@link
   * NotADatabaseException} for a directory that holds no database (nothing is deleted then). A
   * missing path is a no-op.
   */
  public static void destroy(Path path) {
    DatabaseRegistry.destroy(Objects.requireNonNull(path, "path"));
  }

  /** Whether any handle of {@code path} is open in this process. */
  public static boolean isOpen(Path path) {
    return DatabaseRegistry.isOpen(path);
  }

  public Path path() {
    return shared.path();
  }

  /** The settings this database was opened with (fixed for its lifetime). */
  public CommitlaneSettings settings() {
    return shared.settings();
  }

  public DatabaseOptions options() {
    return shared.options();
  }

  public Store defaultStore() {
    return defaultStore;
  }

  /**
   * The named store, created if it does not exist yet. Throws {@link StoreDroppedException} while
   * an earlier store of that name is still being dropped ({@link #createStore} waits for that
   * instead), {@link InvalidStoreNameException} for a name that cannot be a store's.
   */
  public Store store(String name) {
    Store s = name == null ? null : shared.stores().liveStore(name);
    if (s != null) {
      return s;
    }
    shared.requireWritable("create store " + name);
    enter();
    try {
      return shared.stores().createStore(name);
    } finally {
      exit();
    }
  }

  /** The live store of that name, if there is one (never creates; a store being dropped is not live). */
  public Optional<Store> findStore(String name) {
    return name == null ? Optional.empty() : Optional.ofNullable(shared.stores().liveStore(name));
  }

  /**
   * Create the named store, or return it if it is live. If an earlier generation of the name is
   * still being dropped (commits admitted before its drop are still running), the stage completes
   * once that drop finished and the new, empty store exists; it then runs on the store-drop thread,
   * so give dependent stages an executor of yours. Throws {@link InvalidStoreNameException}; the
   * stage fails if the earlier drop failed.
   */
  public CompletionStage<Store> createStore(String name) {
    shared.requireWritable("create store " + name);
    enter();
    try {
      return shared.stores().createStoreWhenFree(name).minimalCompletionStage();
    } finally {
      exit();
    }
  }

  /**
   * Drop the named store. Logical when this returns: the intent is recorded on disk (a crash from
   * now on cannot bring the store back) and new transactions, reads and writes on it fail with
   * {@link StoreDroppedException}. Commits that already claimed it (admitted to a pipeline, or
   * inside {@link Transaction#commitSync()}) run to their end; the returned stage completes once
   * the last of them has finished and the column family is dropped and its handle closed. It
   * completes on the store-drop thread ({@code commitlane-store-drop-<db>}): give dependent stages
   * an executor of yours. Dropping a store already being dropped returns the same stage.
   *
   * <p>Blocks the calling thread while it syncs the small intent file. Throws {@link
   * UnknownStoreException}, {@link InvalidStoreNameException} (also for {@code default}, which
   * cannot be dropped) or {@link DatabaseClosedException}; nothing was changed then.
   */
  public CompletionStage<Void> dropStore(String name) {
    shared.requireWritable("drop store " + name);
    enter();
    try {
      return shared.stores().dropStore(name).minimalCompletionStage();
    } finally {
      exit();
    }
  }

  /** Live stores, in no particular order. */
  public List<String> storeNames() {
    return shared.stores().storeNames();
  }

  /** Stores dropped logically whose physical drop has not finished (commits that claimed them still run). */
  public List<String> droppingStores() {
    return shared.stores().droppingStores();
  }

  /** Begin a transaction. Its snapshot is taken at its first read (not here), to keep it fresh. */
  public Transaction begin() {
    requireOpen();
    return new Transaction(this, shared);
  }

  /** Run {@code body} as a transaction, retrying on conflict up to {@value #DEFAULT_MAX_RETRIES} times. */
  public <T> T transact(TransactionFunction<T> body) {
    return transact(DEFAULT_MAX_RETRIES, body);
  }

  /**
   * Run {@code body} as a transaction and commit it; on {@link ConflictException} run it again on
   * a fresh transaction (fresh snapshot), up to {@code maxRetries} more times. Any other exception
   * aborts the transaction and propagates. The last conflict propagates with its attempt count.
   */
  public <T> T transact(int maxRetries, TransactionFunction<T> body) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0: " + maxRetries);
    }
    Objects.requireNonNull(body, "body");
    boolean scanned = false;
    for (int attempt = 1; ; attempt++) {
      Transaction txn = begin();
      try (txn) {
        if (scanned) {
          txn.expectScans(); // a retry of work that scanned validates its scans exactly
        }
        T result = body.apply(txn);
        txn.commitSync();
        return result;
      } catch (ConflictException e) {
        scanned = txn.expectsScans();
        if (attempt > maxRetries) {
          throw attempt == 1 ? e : new ConflictException(e.transactionId(), attempt);
        }
      }
    }
  }

  public byte[] get(byte[] key) {
    return get(defaultStore, key);
  }

  /** Read the latest committed value, outside any transaction. */
  public byte[] get(Store store, byte[] key) {
    requireOwn(store);
    Objects.requireNonNull(key, "key");
    enter();
    try {
      return shared.get(store, null, key);
    } finally {
      exit();
    }
  }

  /** The latest committed values of {@code keys} in {@code store} (null where absent), from one view, in one RocksDB multi-get. */
  public List<byte[]> multiGet(Store store, List<byte[]> keys) {
    return MultiGet.latest(this, store, keys);
  }

  public List<byte[]> multiGet(List<byte[]> keys) {
    return multiGet(defaultStore, keys);
  }

  /**
   * Scan {@code range} outside any transaction: one consistent view of the committed data, taken
   * when the cursor opens. Close the cursor (try-with-resources); closing this handle ends it.
   */
  public Cursor scan(KeyRange range) {
    return Cursor.outside(this, range);
  }

  /** {@link #scan} into a list, for bounded ranges. */
  public List<KeyValue> list(KeyRange range) {
    return scan(range).toList();
  }

  /** The exact number of committed keys in {@code range} (up to its limit), counted from one view. */
  public long count(KeyRange range) {
    return scan(range.keysOnly()).countRest();
  }

  /** A cheap estimate of the keys in {@code range} from RocksDB's statistics, without reading them; see docs/reads.md. */
  public long estimateCount(KeyRange range) {
    return CountEstimate.of(this, range);
  }

  public void put(byte[] key, byte[] value) {
    put(defaultStore, key, value);
  }

  /** A non-transactional write; see {@link Batch} for how it orders with commits. */
  public void put(Store store, byte[] key, byte[] value) {
    write(Batch.create().put(store, key, value));
  }

  public void remove(byte[] key) {
    remove(defaultStore, key);
  }

  public void remove(Store store, byte[] key) {
    write(Batch.create().remove(store, key));
  }

  /** Apply a batch of non-transactional writes atomically. */
  public void write(Batch batch) {
    writeWithInternalRecords(batch, List.of(), List.of());
  }

  /**
   * {@link #write(Batch)} with one of commitlane's own records ({@link #internalRecords()}) in the
   * same RocksDB write, so RocksDB holds the record exactly when it holds the batch (crash replay
   * marks what it restored this way). The record is added to {@code batch}: do not reuse it.
   */
  @InternalApi
  public void write(Batch batch, byte[] internalKey, byte[] internalValue) {
    if (internalKey == null) {
      writeWithInternalRecords(batch, List.of(), List.of());
    } else {
      writeWithInternalRecords(batch, List.of(internalKey), List.of(Objects.requireNonNull(internalValue, "internalValue")));
    }
  }

  /**
   * {@link #write(Batch)} with several of commitlane's own records in the same RocksDB write. A
   * replica applies a replicated commit this way, with its position in the replicated log, so
   * RocksDB holds the position exactly when it holds the data.
   *
   * @throws IllegalArgumentException if there are not as many values as keys
   */
  @InternalApi
  public void writeWithInternalRecords(Batch batch, List<byte[]> internalKeys, List<byte[]> internalValues) {
    Objects.requireNonNull(batch, "batch");
    if (internalKeys.size() != internalValues.size()) {
      throw new IllegalArgumentException(internalKeys.size() + " internal keys but " + internalValues.size() + " values");
    }
    WriteBuffer w = batch.writes();
    for (int i = 0; i < w.size(); i++) {
      requireOwn(w.store(i));
    }
    if (w.size() == 0 && internalKeys.isEmpty()) {
      return;
    }
    shared.requireWritable("write");
    enter();
    try {
      StoreClaims claims = StoreClaims.claim(w);
      try {
        PendingCommit c = internalKeys.isEmpty() ? new PendingCommit(0, null, w, null, Long.MAX_VALUE, false)
            : new PendingCommit(0, null, w, null, Long.MAX_VALUE, false, null, List.of(), shared.internalStore());
        for (int i = 0; i < internalKeys.size(); i++) {
          c.addInternalWrite(internalKeys.get(i), internalValues.get(i));
        }
        shared.commitPath().commit(c);
      } finally {
        claims.release();
      }
    } finally {
      exit();
    }
  }

  /** Flush every store's memtable to disk and wait for it; flush listeners see the result. */
  public void flush() {
    enter();
    try {
      shared.flush();
    } finally {
      exit();
    }
  }

  /**
   * Compact the keys of {@code range} (in its store, else the default store) and wait for it:
   * RocksDB rewrites the overlapping data files without deleted and overwritten versions. With
   * {@code bottommost}, the last level is rewritten too (needed to reclaim the space of a clear).
   * Commits and automatic compactions go on meanwhile; closing waits for it. See {@link Compaction}.
   * Refused with {@link ReadOnlyDatabaseException} on a read-only handle.
   */
  public void compact(KeyRange range, boolean bottommost) {
    Compaction.run(this, Objects.requireNonNull(range, "range"), bottommost);
  }

  /** {@link #compact(KeyRange, boolean)} of every key of {@code store}. */
  public void compact(Store store, boolean bottommost) {
    compact(KeyRange.all().in(store), bottommost);
  }

  /**
   * Remove every key of {@code range} as one transaction, serializable with concurrent commits
   * (see {@link RangeClear}); returns the number of keys removed. Throws {@link ConflictException}
   * only when writers into the range made {@value RangeClear#MAX_RETRIES} retries conflict too.
   */
  public long clear(KeyRange range) {
    return transact(RangeClear.MAX_RETRIES, RangeClear.of(range));
  }

  /** {@link #clear(KeyRange)} of every key of {@code store} (the default store included). */
  public long clear(Store store) {
    return clear(KeyRange.all().in(store));
  }

  /** RocksDB's latest sequence number (for flush correlation). */
  @InternalApi
  public long latestSequenceNumber() {
    enter();
    try {
      return shared.latestSequenceNumber();
    } finally {
      exit();
    }
  }

  public StorageStats stats() {
    return shared.stats();
  }

  /**
   * The health of RocksDB's background work: OK, or a failed flush or compaction (often a full
   * disk) RocksDB is recovering from (DEGRADED) or will not recover from on its own (FAILED). While
   * RocksDB refuses writes, commits fail with {@link BackgroundErrorException}. One volatile read.
   */
  public DatabaseHealth health() {
    if (!tryEnter()) {
      return shared.backgroundErrors().current(); // closed: the last known state
    }
    try {
      return shared.backgroundErrors().refresh(null);
    } finally {
      exit();
    }
  }

  /**
   * What RocksDB reports about this database now: pending compaction, memtables, live SST files,
   * block cache, write stalls, running flushes and compactions. About ten property reads: for a
   * sampler or a person, not per commit. {@link RocksDbStats#UNKNOWN} once closed.
   */
  public RocksDbStats rocksDbStats() {
    if (!tryEnter()) {
      return RocksDbStats.UNKNOWN;
    }
    try {
      return shared.rocksDbStats();
    } finally {
      exit();
    }
  }

  /**
   * Completes with the health once RocksDB accepts writes again. After a full disk
   * ({@link DatabaseHealth.State#DEGRADED}) RocksDB resumes on its own once the disk has room for a
   * memtable (its {@code write_buffer_size}, 64 MiB by default): free space, then wait on this. It
   * completes on RocksDB's recovery thread: give dependent stages an executor of yours. Fails at
   * once with {@link BackgroundErrorException} when the health is {@link DatabaseHealth.State#FAILED}:
   * rocksdbjni offers no way to resume from that in place; close every handle and reopen.
   */
  public CompletionStage<DatabaseHealth> resume() {
    DatabaseHealth now = health();
    if (now.state() == DatabaseHealth.State.FAILED) {
      return CompletableFuture.failedStage(new BackgroundErrorException(shared.path().toString(), now, null));
    }
    return shared.backgroundErrors().whenOk().minimalCompletionStage();
  }

  /**
   * Install a listener for every commit of this path (all handles). Returns what removes it.
   * See {@link StageListener} for what a listener may do.
   */
  @InternalApi
  public Registration addStageListener(StageListener listener) {
    return shared.hooks().add(Objects.requireNonNull(listener, "listener"))::run;
  }

  /** Whether a stage listener is installed: one may hold a commit at any stage (a test's barrier). */
  @InternalApi
  public boolean hasStageListeners() {
    return shared.hooks().hasListeners();
  }

  /**
   * Pause RocksDB's flushes and compactions of this database (every handle of its path) until the
   * returned registration is closed; RocksDB first waits for those running now. While paused no
   * memtable is flushed, so once a store holds {@code maxWriteBuffers} memtables waiting for their
   * flush, RocksDB stops writes (a write stall) until the pause ends: how tests force a stall
   * without timing luck (see the testkit's {@code WriteStall}). Pauses nest. Closing this handle
   * ends the pauses taken through it first, so that its writes the pause stopped can finish; the
   * database's native close ends any pause left before its final flush. A flush asked for while
   * paused ({@link #flush()}) waits for the pause to end.
   */
  @InternalApi
  public Registration pauseBackgroundWork() {
    enter();
    try {
      Runnable resume = shared.pauseBackgroundWork();
      Registration pause = new Registration() {
        @Override
        public void close() {
          pauses.remove(this);
          resume.run();
        }
      };
      pauses.add(pause);
      return pause;
    } finally {
      exit();
    }
  }

  /**
   * Completes once RocksDB's WAL is written and synced (fsync) past every write that returned
   * before this call: with a group syncer ({@link RocksDbWal}) it rides the next group sync,
   * shared with every concurrent request, and completes on the syncer's thread (hop to your own
   * executor); otherwise it syncs on the calling thread. Fails with {@link StorageException}.
   */
  public CompletableFuture<Void> syncWal() {
    enter();
    try {
      return shared.syncWal();
    } finally {
      exit();
    }
  }

  /** Group WAL syncs run so far (0 without a {@link RocksDbWal} group syncer). */
  public long walSyncs() {
    return shared.walSyncs();
  }

  /** Install a commit hook for every commit of this path (all handles). Returns what removes it. */
  @InternalApi
  public Registration addCommitHook(CommitHook hook) {
    return shared.hooks().add(Objects.requireNonNull(hook, "hook"))::run;
  }

  /**
   * Be told the largest sequence number of every completed RocksDB flush. Runs on RocksDB's flush
   * thread: keep it short, never block it.
   */
  @InternalApi
  public Registration addFlushListener(LongConsumer listener) {
    return shared.flushEvents().add(Objects.requireNonNull(listener, "listener"))::run;
  }

  /**
   * commitlane's own records (replay markers, request records), kept beside the data in an
   * internal column family. For the actor pipeline's bookkeeping only; never user data.
   */
  @InternalApi
  public InternalRecords internalRecords() {
    return internalRecords;
  }

  public boolean isClosed() {
    return gate.isClosed();
  }

  /**
   * Close this handle: wait for its calls in flight, fail its open transactions with {@link
   * DatabaseClosedException}, and release the native database if this was the last handle of the
   * path. Idempotent. Other handles of the same path keep working. A write RocksDB holds in a
   * write stall is a call in flight: close waits for the stall to end (after ending the
   * {@linkplain #pauseBackgroundWork() pauses} taken through this handle), and loses nothing.
   *
   * @throws StorageException if this was the last handle and the final flush (WAL off) or the
   *     native close failed: writes acknowledged since the last flush may then be lost. The handle
   *     is released anyway.
   */
  @Override
  public void close() {
    pauses.forEach(Registration::close); // a write this handle's pause stopped could never finish otherwise
    if (!gate.closeAndAwait()) {
      return;
    }
    pauses.forEach(Registration::close); // taken while the gate closed
    for (Cursor c : openCursors) {
      c.endByDatabase(); // an iterator used after the native close would be a use-after-free
    }
    openCursors.clear();
    for (Transaction t : snapshotHolders) {
      t.releaseSnapshot();
    }
    snapshotHolders.clear();
    DatabaseRegistry.release(shared);
  }

  /** Removes what it was returned for; idempotent. */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Commit several transactions of this database with one RocksDB write (a merged write group).
   * Members are validated in list order, each against committed data and against the members
   * before it; a member that conflicts or fails fails alone and the others commit. A failed write
   * fails every member that got that far and leaves none of them visible. Each member keeps its own
   * version and log record, so the result is as if they had committed one after another.
   *
   * @return each member's result or failure, by position
   */
  public GroupResult commitGroup(List<Transaction> members) {
    shared.requireWritable("commit a group");
    return GroupCommit.commit(shared, Objects.requireNonNull(members, "members"));
  }

  // --- for Transaction and tests ---

  SharedDatabase shared() {
    return shared;
  }

  void enter() {
    if (!gate.tryEnter()) {
      throw new DatabaseClosedException(shared.path());
    }
  }

  void exit() {
    gate.exit();
  }

  /** Enter unless closed; true must be paired with {@link #exit}. */
  boolean tryEnter() {
    return gate.tryEnter();
  }

  void rememberCursor(Cursor c) {
    openCursors.add(c);
  }

  void forgetCursor(Cursor c) {
    openCursors.remove(c);
  }

  void requireOpen() {
    if (gate.isClosed()) {
      throw new DatabaseClosedException(shared.path());
    }
  }

  void requireOwn(Store store) {
    Objects.requireNonNull(store, "store");
    if (store.owner() != shared) {
      throw new IllegalArgumentException(store + " does not belong to database " + shared.path());
    }
  }

  void holdsSnapshot(Transaction t) {
    snapshotHolders.add(t);
  }

  void releasedSnapshot(Transaction t) {
    snapshotHolders.remove(t);
  }
}
