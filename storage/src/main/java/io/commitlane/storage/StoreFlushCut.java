package io.commitlane.storage;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * What a flush of one store makes durable for the whole database when stores flush on their own
 * (atomic flush off, which RocksDB requires with pipelined writes). A flush event names one
 * store's largest flushed sequence, but a transaction log's flushed position covers commits that
 * wrote several stores: passing that sequence on would claim another store's unflushed writes
 * durable, and a crash that loses RocksDB's unsynced WAL tail would then lose them for good.
 *
 * <p>Invariant: the sequence returned is one through which every store holds all its writes in
 * flushed files. A store whose memtables hold no entries has nothing unflushed; any other store
 * counts only up to the largest sequence its own last flush held (its unflushed writes all came
 * after that flush switched its memtable). A store never flushed since open counts as 0.
 */
final class StoreFlushCut {
  private static final String ACTIVE = "rocksdb.num-entries-active-mem-table";
  private static final String IMMUTABLE = "rocksdb.num-entries-imm-mem-tables";

  private final SharedDatabase shared;
  private final RocksDB db;
  /** By column family id: the largest sequence a flush of that store held. */
  private final Map<Integer, Long> flushedByStore = new ConcurrentHashMap<>();
  private final ReadWriteLock open = new ReentrantReadWriteLock();
  /** Guarded by {@link #open}. */
  private boolean closed;

  StoreFlushCut(SharedDatabase shared, RocksDB db) {
    this.shared = shared;
    this.db = db;
  }

  /**
   * The store with column family {@code columnFamilyId} flushed through {@code largest}: the
   * sequence through which every store is flushed now, or -1 once the database is closing. Runs on
   * RocksDB's flush thread, so it never waits for a lock: a writer stalled behind this flush, or a
   * store being created or dropped behind that writer, could hold it. A named store is claimed
   * while it is read (a claim keeps its handle open); {@link #close} keeps the others open.
   */
  long onStoreFlushed(int columnFamilyId, long largest) {
    flushedByStore.merge(columnFamilyId, largest, Math::max);
    if (!open.readLock().tryLock()) {
      return -1; // closing
    }
    try {
      if (closed) {
        return -1;
      }
      // Read first: a store found empty afterwards holds none of the writes up to here unflushed.
      long through = db.getLatestSequenceNumber();
      through = Math.min(through, flushedThrough(shared.internalStore().handle()));
      for (Store s : shared.stores().all()) {
        if (s.state() == null) {
          through = Math.min(through, flushedThrough(s.handle()));
        } else if (s.state().tryClaim()) { // a store being dropped is not claimed: its writes are not replayed
          try {
            through = Math.min(through, flushedThrough(s.handle()));
          } finally {
            s.release();
          }
        }
      }
      return through;
    } finally {
      open.readLock().unlock();
    }
  }

  /** Waits for a running {@link #onStoreFlushed} to finish; later ones answer -1. Before the stores' handles close. */
  void close() {
    open.writeLock().lock();
    try {
      closed = true;
    } finally {
      open.writeLock().unlock();
    }
  }

  /** How far the store is flushed: all the way if its memtables are empty, else as far as its own last flush. */
  private long flushedThrough(ColumnFamilyHandle handle) {
    return unflushedEntries(handle) == 0 ? Long.MAX_VALUE : flushedByStore.getOrDefault(handle.getID(), 0L);
  }

  private long unflushedEntries(ColumnFamilyHandle handle) {
    try {
      return db.getLongProperty(handle, ACTIVE) + db.getLongProperty(handle, IMMUTABLE);
    } catch (RocksDBException e) {
      return Long.MAX_VALUE; // unknown: count the store as holding unflushed writes
    }
  }
}
