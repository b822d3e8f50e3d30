package io.commitlane.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
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
 */
final class SharedDatabase {
  static {
    RocksDB.loadLibrary();
  }

  private final Path path;
  private final DatabaseOptions options;
  private final CommitlaneSettings settings;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final WriteOptions writeOptions;
  private final FlushEvents flushEvents;
  private final RocksDB db;
  private final Map<String, Store> stores = new ConcurrentHashMap<>();
  private final VersionTable table;
  private final Hooks hooks = new Hooks();
  private final CommitPath commitPath;
  /** Seed 004's out-of-band WAL group committer, when {@link RocksDbWal#needsSyncer()}. */
  private final WalGroupSyncer walSyncer;
  private int nextStoreId;
  /** Guarded by {@link DatabaseRegistry}. */
  int references;

  private SharedDatabase(Path path, DatabaseOptions options, CommitlaneSettings settings, DBOptions dbOptions,
      ColumnFamilyOptions cfOptions, FlushEvents flushEvents, RocksDB db, List<ColumnFamilyDescriptor> descriptors,
      List<ColumnFamilyHandle> handles) {
    this.path = path;
    this.options = options;
    this.settings = settings;
    this.dbOptions = dbOptions;
    this.cfOptions = cfOptions;
    this.flushEvents = flushEvents;
    this.db = db;
    this.writeOptions = new WriteOptions().setDisableWAL(!options.walEnabled());
    for (int i = 0; i < handles.size(); i++) {
      String name = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
      stores.put(name, new Store(this, name, nextStoreId++, handles.get(i)));
    }
    this.table = new VersionTable(settings.occLockBuckets());
    this.commitPath = new CommitPath(table, settings.occValidation(), settings.occBlindWrites(), this::write, hooks);
    RocksDbWal wal = settings.rocksDbWal();
    this.walSyncer = wal.needsSyncer()
        ? new WalGroupSyncer(path.getFileName() == null ? path.toString() : path.getFileName().toString(), db, wal.syncInterval())
        : null;
    if (wal.ackAfterSync()) {
      // After the write and after the commit's locks are released: a commit waits for the next
      // group sync, which serves every commit that wrote before it started.
      hooks.add(new CommitHook() {
        @Override
        public void afterWrite(PendingCommit commit) {
          walSyncer.awaitSync();
        }
      });
    }
  }

  static SharedDatabase open(Path path, DatabaseOptions options) {
    CommitlaneSettings settings = options.resolvedSettings();
    Set<String> names = new LinkedHashSet<>();
    names.add(Store.DEFAULT);
    try (Options probe = new Options()) {
      for (byte[] existing : RocksDB.listColumnFamilies(probe, path.toString())) {
        names.add(new String(existing, StandardCharsets.UTF_8));
      }
    } catch (RocksDBException e) {
      throw new StorageException("cannot list the stores of " + path, e);
    }
    names.addAll(options.stores());

    RocksDbWal wal = settings.rocksDbWal();
    wal.checkCompatible(options.walEnabled());
    FlushEvents flushEvents = new FlushEvents();
    DBOptions dbOptions = new DBOptions()
        .setCreateIfMissing(options.createIfMissing())
        .setCreateMissingColumnFamilies(true)
        // With the WAL off, stores (column families) would otherwise flush independently, and a
        // flush event of one would claim the others' data durable: the transaction log's replay
        // start would skip unflushed writes. Atomic flush cuts every store at the same sequence.
        // RocksDB forbids it with pipelined writes, which RocksDbWal allows only with the WAL on
        // (RocksDB then recovers unflushed data from its own WAL).
        .setAtomicFlush(!wal.pipelinedWrite())
        .setManualWalFlush(wal.manualFlush())
        .setUnorderedWrite(wal.unorderedWrite())
        .setEnablePipelinedWrite(wal.pipelinedWrite())
        .setTwoWriteQueues(wal.twoWriteQueues())
        .setListeners(List.of(flushEvents));
    ColumnFamilyOptions cfOptions = new ColumnFamilyOptions();
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (String name : names) {
      descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), cfOptions));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try {
      RocksDB db = RocksDB.open(dbOptions, path.toString(), descriptors, handles);
      return new SharedDatabase(path, options, settings, dbOptions, cfOptions, flushEvents, db, descriptors, handles);
    } catch (RocksDBException e) {
      dbOptions.close();
      cfOptions.close();
      flushEvents.close();
      throw new StorageException("cannot open database " + path, e);
    }
  }

  Path path() {
    return path;
  }

  DatabaseOptions options() {
    return options;
  }

  CommitlaneSettings settings() {
    return settings;
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

  Store existingStore(String name) {
    return stores.get(name);
  }

  synchronized Store createStore(String name) {
    Store s = stores.get(name);
    if (s != null) {
      return s;
    }
    try {
      ColumnFamilyHandle h = db.createColumnFamily(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), cfOptions));
      s = new Store(this, name, nextStoreId++, h);
      stores.put(name, s);
      return s;
    } catch (RocksDBException e) {
      throw new StorageException("cannot create store " + name + " in " + path, e);
    }
  }

  List<String> storeNames() {
    return List.copyOf(stores.keySet());
  }

  byte[] get(Store store, ReadOptions readOptions, byte[] key) {
    try {
      return readOptions == null ? db.get(store.handle(), key) : db.get(store.handle(), readOptions, key);
    } catch (RocksDBException e) {
      throw new StorageException("read failed in " + path, e);
    }
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

  void flush() {
    try (org.rocksdb.FlushOptions fo = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
      List<ColumnFamilyHandle> all = new ArrayList<>();
      for (Store s : stores.values()) {
        all.add(s.handle());
      }
      db.flush(fo, all);
    } catch (RocksDBException e) {
      throw new StorageException("flush failed in " + path, e);
    }
  }

  /** One key goes through {@code put}/{@code delete} (one JNI call); more through a WriteBatch. */
  private void write(WriteBuffer w) {
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
      try (WriteBatch batch = new WriteBatch()) {
        for (int i = 0; i < w.size(); i++) {
          byte[] v = w.value(i);
          if (v == null) {
            batch.delete(w.store(i).handle(), w.key(i));
          } else {
            batch.put(w.store(i).handle(), w.key(i), v);
          }
        }
        db.write(writeOptions, batch);
      }
    } catch (RocksDBException e) {
      throw new StorageException("write failed in " + path, e);
    }
  }

  StorageStats stats() {
    return new StorageStats(commitPath.commits.sum(), commitPath.conflicts.sum(), commitPath.failures.sum(),
        commitPath.writes.sum(), table.allocatedChunks());
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

  /** Close the native handle. Every handle's gate is closed and drained before this runs. */
  void closeNative() {
    if (walSyncer != null) {
      walSyncer.close(); // a last sync for what is pending, before the handle goes
    }
    for (Store s : stores.values()) {
      s.handle().close();
    }
    db.close();
    writeOptions.close();
    dbOptions.close();
    cfOptions.close();
    flushEvents.close();
  }
}
