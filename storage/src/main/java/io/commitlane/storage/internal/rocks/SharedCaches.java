package io.commitlane.storage.internal.rocks;

import io.commitlane.storage.RocksDbTuning;
import java.util.HashMap;
import java.util.Map;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.WriteBufferManager;

/**
 * The block cache and write-buffer manager that every database of the process opened with the
 * same sizes uses: one object each, so memory is bounded per process rather than per database.
 * Reference-counted: the native objects are made by the first open and closed when the last
 * database holding them closes (after its RocksDB handle, which uses them until then).
 */
public final class SharedCaches {
  private record Sizes(long cache, long writeBuffers) {}

  /** Guarded by the class. */
  private static final Map<Sizes, Lease> LIVE = new HashMap<>();

  private SharedCaches() {}

  /** The cache (and manager) for these sizes, made if no open database holds them; null cache when the size is 0. */
  public static synchronized Lease acquire(RocksDbTuning tuning) {
    Sizes sizes = new Sizes(tuning.blockCacheSize(), tuning.writeBufferManagerSize());
    Lease lease = LIVE.get(sizes);
    if (lease == null) {
      Cache cache = sizes.cache() == 0 ? null : new LRUCache(sizes.cache());
      // No stall: a stalled writer would wait for memtables of other, idle databases that nothing flushes.
      WriteBufferManager manager = sizes.writeBuffers() == 0 ? null : new WriteBufferManager(sizes.writeBuffers(), cache, false);
      lease = new Lease(sizes, cache, manager);
      LIVE.put(sizes, lease);
    }
    lease.references++;
    return lease;
  }

  /** Live shared caches (for tests: 0 once every database closed). */
  static synchronized int live() {
    return LIVE.size();
  }

  /** One database's hold on the shared objects. */
  public static final class Lease {
    private final Sizes sizes;
    private final Cache cache;
    private final WriteBufferManager manager;
    /** Guarded by {@link SharedCaches}. */
    private int references;

    private Lease(Sizes sizes, Cache cache, WriteBufferManager manager) {
      this.sizes = sizes;
      this.cache = cache;
      this.manager = manager;
    }

    /** The shared block cache, or null for RocksDB's private per-store caches. */
    public Cache cache() {
      return cache;
    }

    /** The shared write-buffer manager, or null for no process bound on memtables. */
    public WriteBufferManager writeBufferManager() {
      return manager;
    }

    public int references() {
      synchronized (SharedCaches.class) {
        return references;
      }
    }

    /** Called once per {@link #acquire}, after the database stopped using the objects. */
    public void release() {
      synchronized (SharedCaches.class) {
        if (--references > 0) {
          return;
        }
        LIVE.remove(sizes);
      }
      if (manager != null) {
        manager.close();
      }
      if (cache != null) {
        cache.close();
      }
    }
  }
}
