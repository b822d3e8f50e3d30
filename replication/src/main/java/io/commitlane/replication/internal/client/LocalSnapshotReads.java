package io.commitlane.replication.internal.client;

import io.commitlane.replication.internal.entry.ReplicaRecords;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Reads of this node's replica, all from one RocksDB snapshot, with the applied position in that snapshot. */
public final class LocalSnapshotReads implements SnapshotReads {
  private final Database db;
  private final Transaction snapshot;

  public LocalSnapshotReads(Database db) {
    this.db = db;
    this.snapshot = db.begin();
  }

  @Override
  public byte[] get(String store, byte[] key) {
    Store s = db.findStore(store).orElse(null);
    return s == null ? null : snapshot.getUntracked(s, key);
  }

  @Override
  public List<KeyValue> scan(String store, KeyRange range) {
    Store s = db.findStore(store).orElse(null);
    List<KeyValue> out = new ArrayList<>();
    if (s != null) {
      try (Cursor c = snapshot.scanUntracked(range.in(s))) {
        c.forEachRemaining(out::add);
      }
    }
    return out;
  }

  @Override
  public long snapshotIndex() {
    List<KeyValue> r = snapshot.internalRecordsUntracked(ReplicaRecords.APPLIED,
        Arrays.copyOf(ReplicaRecords.APPLIED, ReplicaRecords.APPLIED.length + 1));
    return r.isEmpty() ? 0 : ReplicaRecords.readApplied(r.get(0).value())[1];
  }

  @Override
  public void close() {
    snapshot.close();
  }
}
