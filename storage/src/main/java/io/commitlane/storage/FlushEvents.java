package io.commitlane.storage;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards RocksDB's flush-completed events (the largest sequence number the flush held) to the
 * listeners of one database; the transaction log uses it to record what no longer needs replay.
 * Registered at open because RocksDB takes listeners only then.
 */
final class FlushEvents extends AbstractEventListener {
  private static final Logger LOG = LoggerFactory.getLogger(FlushEvents.class);
  private final CopyOnWriteArrayList<LongConsumer> listeners = new CopyOnWriteArrayList<>();

  FlushEvents() {
    super(EnabledEventCallback.ON_FLUSH_COMPLETED);
  }

  Runnable add(LongConsumer listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  @Override
  public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
    long largest = info.getLargestSeqno();
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
