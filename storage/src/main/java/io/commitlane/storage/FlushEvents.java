package io.commitlane.storage;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards RocksDB's flush-completed events (the largest sequence number the flush held, or with
 * stores flushing on their own the sequence every store holds flushed) to the listeners of one
 * database; the transaction log uses it to record what no longer needs replay.
 * Registered at open because RocksDB takes listeners only then.
 */
final class FlushEvents extends AbstractEventListener {
  private static final Logger LOG = LoggerFactory.getLogger(FlushEvents.class);
  private final CopyOnWriteArrayList<LongConsumer> listeners = new CopyOnWriteArrayList<>();
  /** Set when stores flush on their own (atomic flush off); null: every flush cuts all stores at once. */
  private volatile StoreFlushCut perStore;

  FlushEvents() {
    super(EnabledEventCallback.ON_FLUSH_COMPLETED);
  }

  /** Stores flush one by one: pass on only what every store holds flushed (see {@link StoreFlushCut}). */
  void correlatePerStore(StoreFlushCut cut) {
    this.perStore = cut;
  }

  /** Before the stores' handles close: no per-store reading runs from here on. */
  void stopCorrelating() {
    StoreFlushCut cut = perStore;
    if (cut != null) {
      cut.close();
    }
  }

  Runnable add(LongConsumer listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  @Override
  public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
    StoreFlushCut cut = perStore;
    long largest = cut == null ? info.getLargestSeqno() : cut.onStoreFlushed((int) info.getColumnFamilyId(), info.getLargestSeqno());
    if (largest < 0) {
      return; // the database is closing
    }
    for (LongConsumer l : listeners) {
      try {
        l.accept(largest);
      } catch (RuntimeException e) {
        // A listener's failure must not propagate into RocksDB's flush thread.
        LOG.error("flush listener failed for sequence {}", largest, e);
      }
    }
  }
}
