package io.commitlane.storage;

import io.commitlane.storage.internal.commit.CommitEvents;
import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.commit.CommitPath;
import io.commitlane.storage.internal.commit.Hooks;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.VersionTable;
import io.commitlane.storage.internal.commit.WalGroupSyncer;
import io.commitlane.storage.internal.commit.WriteBatchFormat;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The one native RocksDB handle of a path in this process, shared by every {@link Database}
 * handle of that path (reference-counted by {@link DatabaseRegistry}). Owns the column families,
 * the version table and the commit path. Callers guarantee, through their handle's lifecycle
 * gate, that no native call runs once {@link #closeNative()} started.
 *
 * <p>Its named stores live in a {@link StoreCatalog}, which creates and drops them under this
 * object's lock (which also guards rocksdbjni's list of column-family handles, and which close
 * takes). A drop is logical at once (see {@link StoreState}) and physical once no commit claims
 * the store.
 */
final class SharedDatabase {
  /** How long close waits for physical drops already handed over (they are quick unless a callback blocks). */
  private static final java.time.Duration DROP_DRAIN_TIMEOUT = java.time.Duration.ofSeconds(10);

  private final Path path;
  private final DatabaseOptions options;
  private final CommitlaneSettings settings;
  private final DBOptions dbOptions;
  /** Column-family options per compression and the shared caches: closed after the handle. */
  private final StoreOptions storeOptions;
  private final WriteOptions writeOptions;
  private final FlushEvents flushEvents;
  private final BackgroundErrors backgroundErrors;
  private final RocksProperties properties;
  private final RocksDB db;
  private final StoreCatalog catalog;
  /** commitlane's own column family ({@link Store#INTERNAL}); not in the catalog, so never listed or dropped. */
  private final Store internal;
  private final VersionTable table;
  private final Hooks hooks = new Hooks();
  private final CommitPath commitPath;
  private final CommitEvents events;
  /** The out-of-band WAL group committer, when {@link RocksDbWal#needsSyncer()}. */
  private final WalGroupSyncer walSyncer;
  /** Guarded by this: set by {@link #closeNative()}; a physical drop that finds it set is left for the next open. */
  private boolean closed;
  /** Opened with RocksDB's {@code openReadOnly}: no replay, no writes, no flushes (see {@link #requireWritable}). */
  private final boolean readOnly;
  /** Guarded by {@link DatabaseRegistry}. */
  int references;
  /** Guards {@link #pauses}: never held while RocksDB waits for running background work. */
  private final Object pauseLock = new Object();
  /** Pauses of RocksDB's background work in force (RocksDB counts them too); -1 once the handle closed. */
  private int pauses;

  private SharedDatabase(Path path, DatabaseOptions options, CommitlaneSettings settings, NativeOpen.Handles opened,
      boolean readOnly) {
    this.path = path;
    this.readOnly = readOnly;
    this.options = options;
    this.settings = settings;
    this.dbOptions = opened.dbOptions();
    this.storeOptions = opened.storeOptions();
    this.flushEvents = opened.flushEvents();
    this.backgroundErrors = opened.backgroundErrors();
    this.properties = opened.properties();
    this.db = opened.db();
    List<ColumnFamilyDescriptor> descriptors = opened.descriptors();
    List<ColumnFamilyHandle> handles = opened.handles();
    this.writeOptions = new WriteOptions().setDisableWAL(!options.walEnabled());
    this.events = new CommitEvents(path.toString());
    this.catalog = new StoreCatalog(this, db, storeOptions, path, events);
    Store internalStore = null;
    for (int i = 0; i < handles.size(); i++) {
      Store store = catalog.opened(new String(descriptors.get(i).getName(), StandardCharsets.UTF_8), handles.get(i));
      if (store.isInternal()) {
        internalStore = store;
      }
    }
    this.internal = internalStore;
    this.table = new VersionTable(settings.occLockBuckets());
    this.commitPath = new CommitPath(table, settings.occValidation(), settings.occBlindWrites(), new CommitPath.Writer() {
      @Override
      public void write(WriteBuffer w) {
        SharedDatabase.this.write(w);
      }

      @Override
      public void writeAll(List<WriteBuffer> ws) {
        SharedDatabase.this.writeAll(ws);
      }
    }, hooks, events);
    RocksDbWal wal = settings.rocksDbWal();
    this.walSyncer = wal.needsSyncer()
        ? new WalGroupSyncer(path.getFileName() == null ? path.toString() : path.getFileName().toString(), db, wal.syncInterval(),
            commitPath::baseline)
        : null;
    if (wal.ackAfterSync()) {
      // After the write and after the commit's locks are released: a commit waits for the next
      // group sync, which serves every commit that wrote before it started.
      hooks.add(new CommitHook() {
        @Override
        public void afterWrite(PendingCommit commit) {
          // One sync serves a whole merged group: its members are stamped before the first waits.
          walSyncer.awaitSyncCovering(commit.version());
        }
      });
    }
  }

  /**
   * {@code readOnly}: RocksDB's {@code openReadOnly}, which takes no lock (a live process may hold
   * the database) and writes nothing; recorded store drops are left for the next writable open.
   */
  static SharedDatabase open(Path path, DatabaseOptions options, boolean readOnly) {
    CommitlaneSettings settings = options.resolvedSettings();
    NativeOpen.Handles opened = NativeOpen.open(path, options, settings, readOnly);
    SharedDatabase shared = new SharedDatabase(path, options, settings, opened, readOnly);
    if (!readOnly && settings.rocksDbWal().pipelinedWrite()) {
      // No atomic flush (see NativeOpen): one store's flush is not the database's.
      opened.flushEvents().correlatePerStore(new StoreFlushCut(shared, opened.db()));
    }
    opened.backgroundErrors().attach(opened.db());
    if (readOnly) {
      return shared;
    }
    try {
      shared.catalog.finishRecordedDrops(options.stores());
    } catch (RuntimeException e) {
      shared.closeNative();
      throw e;
    }
    return shared;
  }

  Path path() {
    return path;
  }

  boolean isReadOnly() {
    return readOnly;
  }

  /** Refuses {@code what} on a read-only database, before anything is changed. */
  void requireWritable(String what) {
    if (readOnly) {
      throw new ReadOnlyDatabaseException(path, what);
    }
  }

  DatabaseOptions options() {
    return options;
  }

  CommitlaneSettings settings() {
    return settings;
  }

  StoreOptions storeOptions() {
    return storeOptions;
  }

  CommitPath commitPath() {
    return commitPath;
  }

  Hooks hooks() {
    return hooks;
  }

  FlushEvents flushEvents() {
    return flushEvents;
  }

  BackgroundErrors backgroundErrors() {
    return backgroundErrors;
  }

  /** RocksDB's own numbers; callers are inside a handle's gate. */
  RocksDbStats rocksDbStats() {
    List<Store> stores = new ArrayList<>(catalog.liveStores());
    stores.add(internal);
    return properties.read(db, internal.handle(), stores);
  }

  /**
   * RocksDB's {@code PauseBackgroundWork}: waits for the flushes and compactions running now, then
   * starts no more until the returned action (idempotent) continues them. Callers are inside a
   * handle's gate; the action may run after the handle closed, when {@link #closeNative()} has
   * ended every pause already, and then does nothing.
   */
  Runnable pauseBackgroundWork() {
    requireWritable("pause background work");
    try {
      db.pauseBackgroundWork(); // not under pauseLock: a running flush's listeners must be able to finish
    } catch (RocksDBException e) {
      throw new StorageException("cannot pause the background work of " + path, e);
    }
    synchronized (pauseLock) {
      pauses++;
    }
    java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
    return () -> {
      if (ended.compareAndSet(false, true)) {
        continueBackgroundWork(1);
      }
    };
  }

  /** Ends {@code n} pauses, or every pause left when n is -1 (at close); nothing once the handle closed. */
  private void continueBackgroundWork(int n) {
    synchronized (pauseLock) {
      int left = Math.max(pauses, 0);
      int end = n < 0 ? left : Math.min(n, left);
      try {
        for (int i = 0; i < end; i++) {
          db.continueBackgroundWork(); // schedules the paused work and returns: safe under the lock
          pauses--;
        }
      } catch (RocksDBException e) {
        throw new StorageException("cannot continue the background work of " + path, e);
      }
    }
  }

  /** The named stores of this database. */
  StoreCatalog stores() {
    return catalog;
  }

  /** Guarded by this: whether {@link #closeNative()} has closed the handle. */
  boolean isClosed() {
    return closed;
  }

  /** A read claims its store for its length: a drop cannot close the handle under it. */
  byte[] get(Store store, ReadOptions readOptions, byte[] key) {
    boolean claimed = store.claim();
    try {
      return readOptions == null ? db.get(store.handle(), key) : db.get(store.handle(), readOptions, key);
    } catch (RocksDBException e) {
      throw new StorageException("read failed in " + path, e);
    } finally {
      if (claimed) {
        store.release();
      }
    }
  }

  Store internalStore() {
    return internal;
  }

  /** Writes of commitlane's own records outside commits ({@link InternalRecords}) use the database's write options. */
  WriteOptions writeOptions() {
    return writeOptions;
  }

  /** The native handle, for scans and batched reads; callers are inside a handle's gate (see the class comment). */
  RocksDB rocks() {
    return db;
  }

  Snapshot takeSnapshot() {
    return db.getSnapshot();
  }

  void releaseSnapshot(Snapshot s) {
    db.releaseSnapshot(s);
  }

  long latestSequenceNumber() {
    return db.getLatestSequenceNumber();
  }

  /** Flushes every store; a store being dropped is left out (claimed ones stay open meanwhile). */
  void flush() {
    requireWritable("flush");
    List<Store> claimed = new ArrayList<>();
    try (org.rocksdb.FlushOptions fo = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
      List<ColumnFamilyHandle> all = new ArrayList<>();
      all.add(internal.handle());
      for (Store s : catalog.all()) {
        if (s.state() == null) {
          all.add(s.handle());
        } else if (s.state().tryClaim()) {
          claimed.add(s);
          all.add(s.handle());
        }
      }
      db.flush(fo, all);
    } catch (RocksDBException e) {
      backgroundErrors.refresh(e);
      throw new StorageException("flush failed in " + path, e);
    } finally {
      claimed.forEach(Store::release);
    }
  }

  /** Flushes one store only (and waits): with atomic flush off, the others keep their memtables. */
  void flush(Store store) {
    try (org.rocksdb.FlushOptions fo = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
      db.flush(fo, store.handle());
    } catch (RocksDBException e) {
      throw new StorageException("flush of store " + store.name() + " failed in " + path, e);
    }
  }

  /**
   * One key goes through {@code put}/{@code delete} (one JNI call); more through one serialized
   * WriteBatch ({@link WriteBatchFormat}: one JNI call to build it, whatever the key count).
   */
  private void write(WriteBuffer w) {
    requireWritable("write");
    StoreClaims.requireWritable(w);
    try {
      if (w.size() == 1) {
        byte[] v = w.value(0);
        if (v == null) {
          db.delete(w.store(0).handle(), writeOptions, w.key(0));
        } else {
          db.put(w.store(0).handle(), writeOptions, w.key(0), v);
        }
        return;
      }
      try (WriteBatch batch = new WriteBatch(WriteBatchFormat.of(w))) {
        db.write(writeOptions, batch);
      }
    } catch (RocksDBException e) {
      throw backgroundErrors.writeFailed(e);
    }
  }

  /** A merged write group: every buffer in one serialized WriteBatch, in order, so the group is atomic. */
  private void writeAll(List<WriteBuffer> buffers) {
    requireWritable("write");
    if (buffers.size() == 1) {
      if (buffers.get(0).size() > 0) {
        write(buffers.get(0));
      }
      return;
    }
    int count = 0;
    for (WriteBuffer w : buffers) {
      StoreClaims.requireWritable(w); // checked per member under its locks already; this is the last line
      count += w.size();
    }
    if (count == 0) {
      return;
    }
    try (WriteBatch batch = new WriteBatch(WriteBatchFormat.of(buffers))) {
      db.write(writeOptions, batch);
    } catch (RocksDBException e) {
      throw backgroundErrors.writeFailed(e);
    }
  }

  StorageStats stats() {
    return new StorageStats(commitPath.commits.sum(), commitPath.conflicts.sum(), commitPath.failures.sum(),
        commitPath.writes.sum(), table.allocatedChunks(),
        commitPath.groups.sum(), commitPath.groupMembers.sum(), commitPath.groupConflicts.sum(),
        commitPath.recentWrites().conservativeAnswers.sum() + commitPath.orderedWrites().conservativeAnswers.sum(),
        commitPath.recentWrites().slots(), backgroundErrors.current());
  }

  /**
   * Completes after a RocksDB WAL write + fsync that started after this call, shared with every
   * concurrent request; already complete when no group syncer runs and the WAL is written per
   * write (then use {@code WriteOptions.sync}-style durability of RocksDB's defaults).
   */
  java.util.concurrent.CompletableFuture<Void> syncWal() {
    if (walSyncer != null) {
      return walSyncer.requestSync();
    }
    try {
      if (options.walEnabled()) {
        db.flushWal(true);
      }
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    } catch (RocksDBException e) {
      return java.util.concurrent.CompletableFuture.failedFuture(new StorageException("RocksDB WAL sync of " + path + " failed", e));
    }
  }

  /** Group syncs run so far (0 without a syncer). */
  long walSyncs() {
    return walSyncer == null ? 0 : walSyncer.syncs();
  }

  /**
   * Close the native handle. Every handle's gate is closed and drained before this runs. With the
   * WAL off the memtables hold acknowledged writes that only a flush makes durable: that flush is
   * done here, explicitly, and a failure (a full disk) is thrown after everything is released, so
   * the caller learns that acknowledged writes may be lost.
   */
  void closeNative() {
    StorageException failure = null;
    // A pause left in force would hold the final flush (and RocksDB's own at close) forever.
    continueBackgroundWork(-1);
    synchronized (pauseLock) {
      pauses = -1;
    }
    if (walSyncer != null) {
      walSyncer.close(); // a last sync for what is pending, before the handle goes
    }
    // Physical drops already handed over run first (no claims are left); a drop still waiting
    // for claims, or one that failed, is finished by the next open from its recorded intent.
    catalog.drainDrops(DROP_DRAIN_TIMEOUT);
    if (!options.walEnabled() && !readOnly) {
      try {
        flush();
      } catch (StorageException e) {
        failure = new StorageException("the final flush of " + path + " failed: writes acknowledged since the last"
            + " flush are not on disk and are lost unless a transaction log replays them", e.getCause());
      }
    }
    synchronized (this) {
      closed = true;
    }
    flushEvents.stopCorrelating();
    backgroundErrors.attach(null); // no property reads on a closing handle
    catalog.close();
    internal.handle().close();
    try {
      db.closeE();
    } catch (RocksDBException e) {
      if (failure == null) {
        failure = new StorageException("closing " + path + " failed", e);
      }
    } finally {
      writeOptions.close();
      dbOptions.close();
      storeOptions.close();
      flushEvents.close();
      backgroundErrors.close();
      properties.close();
    }
    if (failure != null) {
      throw failure;
    }
  }
}
