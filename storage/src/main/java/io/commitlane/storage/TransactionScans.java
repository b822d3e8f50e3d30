package io.commitlane.storage;

import java.util.ArrayList;
import java.util.List;
import org.rocksdb.Snapshot;

/**
 * A transaction's scans: the cursors it has open (ended with it) and the intervals its tracked
 * scans covered (validated at its commit). Its first tracked scan registers it with the ordered
 * record of writes ({@link OrderedWrites#enterScanning}) until its commit or abort is over, so
 * every write it must validate against is recorded; untracked scans register nothing.
 */
final class TransactionScans {
  private final Database handle;
  private final List<Cursor> open = new ArrayList<>(2);
  /** Null until the first tracked scan. */
  private ScannedRanges tracked;
  private OrderedWrites registeredWith;

  TransactionScans(Database handle) {
    this.handle = handle;
  }

  /** Before a tracked scan, and before the transaction takes its baseline (if it has none yet). */
  void beforeTrackedScan(OrderedWrites ordered) {
    if (registeredWith == null) {
      ordered.enterScanning();
      registeredWith = ordered;
      tracked = new ScannedRanges();
    }
  }

  /** The caller is inside the handle's gate and holds the transaction's snapshot. */
  Cursor open(KeyRange range, Snapshot snapshot, WriteBuffer writes, boolean track) {
    Store store = range.storeIn(handle);
    ScannedRanges.Interval interval = track ? tracked.add(store, range.start(), range.end(), range.isReverse()) : null;
    Cursor[] self = new Cursor[1];
    Cursor c = new Cursor(handle, range, snapshot, writes, interval, () -> {
      open.remove(self[0]);
      handle.forgetCursor(self[0]);
    });
    self[0] = c;
    open.add(c);
    handle.rememberCursor(c);
    return c;
  }

  /** The transaction ended or is committing: its cursors end too (their intervals are final). Inside the gate. */
  void endCursors(String reason) {
    for (Cursor c : List.copyOf(open)) {
      c.endWithTransaction(reason);
    }
    open.clear();
  }

  /** The intervals to validate, or null when no tracked scan ran. */
  ScannedRanges tracked() {
    return tracked;
  }

  /** Its validation is over (or will never run). Idempotent. */
  void leave() {
    if (registeredWith != null) {
      registeredWith.leaveScanning();
      registeredWith = null;
    }
  }
}
