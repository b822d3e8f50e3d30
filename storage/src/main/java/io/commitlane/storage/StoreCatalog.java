package io.commitlane.storage;

import io.commitlane.storage.internal.commit.CommitEvents;
import io.commitlane.storage.internal.commit.StoreDroppedEvent;
import io.commitlane.storage.internal.files.DropIntents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The named stores (column families) of one database: looked up, created, dropped logically at
 * once (the intent recorded first, see {@link StoreState}) and physically once no commit claims
 * them, on the database's drop thread; and the drops a crash interrupted, finished at open.
 *
 * <p>It locks the {@link SharedDatabase} it belongs to, the monitor that close takes too (and that
 * guards rocksdbjni's list of column-family handles), so a physical drop never touches a closed
 * RocksDB: one that finds the database closed is left to the next open, from its recorded intent.
 */
final class StoreCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(StoreCatalog.class);

  private final SharedDatabase lock;
  private final RocksDB db;
  private final StoreOptions cfOptions;
  private final Path path;
  private final CommitEvents events;
  private final DropIntents dropIntents;
  private final StoreDropExecutor dropExecutor;
  private final Map<String, Store> stores = new ConcurrentHashMap<>();
  /** Guarded by the lock. */
  private int nextStoreId;

  StoreCatalog(SharedDatabase lock, RocksDB db, StoreOptions cfOptions, Path path, CommitEvents events) {
    this.lock = lock;
    this.db = db;
    this.cfOptions = cfOptions;
    this.path = path;
    this.events = events;
    this.dropIntents = new DropIntents(path);
    Path file = path.getFileName();
    this.dropExecutor = new StoreDropExecutor(file == null ? "root" : file.toString());
  }

  /** A column family RocksDB opened with the database, as a store; the internal one is returned, not listed. */
  Store opened(String name, ColumnFamilyHandle handle) {
    synchronized (lock) {
      Store store = new Store(lock, name, nextStoreId++, handle);
      if (!store.isInternal()) {
        stores.put(name, store);
      }
      return store;
    }
  }

  /**
   * Finish the drops a crash interrupted: a recorded intent whose generation is still here is
   * dropped now, before anyone can use the store; one whose store is gone (the drop finished, the
   * record's delete did not) is forgotten. Then stores the open asked for that are missing are
   * created again, as new generations.
   */
  void finishRecordedDrops(List<String> wanted) {
    synchronized (lock) {
      for (Map.Entry<Integer, String> intent : dropIntents.pending().entrySet()) {
        Store s = stores.get(intent.getValue());
        if (s != null && s.generation() == intent.getKey() && s.state() != null) {
          try {
            db.dropColumnFamily(s.handle());
          } catch (RocksDBException e) {
            throw new StorageException("cannot finish dropping store '" + s.name() + "' in " + path, e);
          }
          db.destroyColumnFamilyHandle(s.handle());
          stores.remove(s.name());
          LOG.info("finished dropping store '{}' (generation {}) of {}, interrupted before", s.name(), s.generation(), path);
        }
        dropIntents.remove(intent.getKey());
      }
      for (String name : wanted) {
        createStore(name);
      }
    }
  }

  /** The store of that name in any phase (live or still dropping), or null. */
  Store existingStore(String name) {
    return stores.get(name);
  }

  /** The live store of that name, or null (none, or being dropped). */
  Store liveStore(String name) {
    Store s = stores.get(name);
    return s != null && (s.state() == null || s.state().isLive()) ? s : null;
  }

  /**
   * The live store of that name, created if there is none. Throws {@link StoreDroppedException}
   * while an earlier generation is still being dropped (RocksDB keeps the name until then).
   */
  Store createStore(String name) {
    StoreNames.requireValid(name);
    synchronized (lock) {
      Store s = stores.get(name);
      if (s != null) {
        s.requireLive();
        return s;
      }
      try {
        ColumnFamilyHandle h = db.createColumnFamily(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), cfOptions.forStore(name)));
        s = new Store(lock, name, nextStoreId++, h);
        stores.put(name, s);
        return s;
      } catch (RocksDBException e) {
        throw new StorageException("cannot create store " + name + " in " + path, e);
      }
    }
  }

  /**
   * The live store of that name: at once if it exists or can be created now; after the physical
   * drop of an earlier generation still being dropped otherwise (then created on the drop thread,
   * which completes the returned future).
   */
  CompletableFuture<Store> createStoreWhenFree(String name) {
    StoreNames.requireValid(name);
    Store previous;
    synchronized (lock) {
      previous = stores.get(name);
      if (previous == null || previous.state() == null || previous.state().isLive()) {
        return CompletableFuture.completedFuture(createStore(name));
      }
    }
    return previous.state().dropped().thenCompose(v -> {
      synchronized (lock) {
        if (lock.isClosed()) {
          throw new DatabaseClosedException(path);
        }
        Store again = stores.get(name);
        // A newer generation may have been created (or started dropping) meanwhile: wait for that one.
        return again == null || again.state().isLive()
            ? CompletableFuture.completedFuture(createStore(name)) : createStoreWhenFree(name);
      }
    });
  }

  /**
   * The logical drop, at once: the intent is recorded (synced) first, so from the moment any
   * caller can see the drop a crash cannot undo it; then the store refuses claims. The returned
   * future completes on the drop thread once the last claim is released and the column family is
   * dropped and its handle closed. Dropping a store that is already being dropped returns the same
   * future.
   */
  CompletableFuture<Void> dropStore(String name) {
    StoreNames.requireDroppable(name);
    synchronized (lock) {
      Store s = stores.get(name);
      if (s == null) {
        throw new UnknownStoreException(name, path);
      }
      if (!s.state().isLive()) {
        return s.state().dropped();
      }
      dropIntents.persist(s.generation(), name);
      StoreDroppedEvent event = events.beginDrop();
      s.state().beginDrop(() -> schedulePhysicalDrop(s, event));
      return s.state().dropped();
    }
  }

  /** Runs on whichever thread released the last claim: only hand over, never wait here. */
  private void schedulePhysicalDrop(Store s, StoreDroppedEvent event) {
    try {
      dropExecutor.execute(() -> dropPhysically(s, event));
    } catch (RejectedExecutionException e) {
      // Closed meanwhile: the intent stays recorded and the next open finishes the drop.
      events.dropped(event, s, "CLOSED");
      s.state().dropped().completeExceptionally(new DatabaseClosedException(path));
    }
  }

  /** On the drop thread, once no claim is held and none can be taken. */
  private void dropPhysically(Store s, StoreDroppedEvent event) {
    Throwable failure = null;
    synchronized (lock) {
      if (lock.isClosed()) {
        failure = new DatabaseClosedException(path);
      } else {
        try {
          db.dropColumnFamily(s.handle());
          db.destroyColumnFamilyHandle(s.handle());
          s.state().markDropped();
          stores.remove(s.name(), s);
        } catch (RocksDBException e) {
          // The store stays refused; its intent stays recorded, so the next open tries again.
          failure = new StorageException("cannot drop store '" + s.name() + "' in " + path, e);
        }
      }
    }
    events.dropped(event, s, failure == null ? "DROPPED" : failure instanceof DatabaseClosedException ? "CLOSED" : "FAILED");
    if (failure != null) {
      LOG.error("store '{}' of {} is dropped logically but not physically; the next open finishes it", s.name(), path, failure);
      s.state().dropped().completeExceptionally(failure);
      return;
    }
    try {
      dropIntents.remove(s.generation());
    } catch (RuntimeException e) {
      LOG.warn("store '{}' of {} is dropped; its drop record stays until the next open", s.name(), path, e);
    }
    s.state().dropped().complete(null); // outside the lock: dependents run here, on the drop thread
  }

  /** The live stores (the default one included, the internal one not). */
  List<Store> liveStores() {
    List<Store> live = new ArrayList<>();
    stores.values().forEach(s -> {
      if (s.state() == null || s.state().isLive()) {
        live.add(s);
      }
    });
    return live;
  }

  /** Live stores only. */
  List<String> storeNames() {
    List<String> names = new ArrayList<>();
    stores.forEach((name, s) -> {
      if (s.state() == null || s.state().isLive()) {
        names.add(name);
      }
    });
    return List.copyOf(names);
  }

  /** Stores dropped logically whose physical drop has not finished. */
  List<String> droppingStores() {
    List<String> names = new ArrayList<>();
    stores.forEach((name, s) -> {
      if (s.state() != null && !s.state().isLive()) {
        names.add(name);
      }
    });
    return List.copyOf(names);
  }

  /** Every store in any phase, for flush and close. */
  Collection<Store> all() {
    return stores.values();
  }

  /** Lets physical drops already handed over finish (close calls it before its final flush). */
  void drainDrops(Duration timeout) {
    dropExecutor.drain(timeout);
  }

  /** Stops the drop thread and closes every store's handle; the database is closed by then. */
  void close() {
    dropExecutor.shutdown();
    for (Store s : stores.values()) {
      s.handle().close();
    }
  }
}
