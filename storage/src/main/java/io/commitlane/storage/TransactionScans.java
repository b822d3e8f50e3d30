package io.commitlane.storage;

import io.commitlane.storage.internal.commit.OrderedWrites;
import io.commitlane.storage.internal.commit.ScannedRanges;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.rocksdb.Snapshot;

/**
 * A transaction's scans: the cursors it has open (ended with it) and the intervals its tracked
 * scans covered (validated at its commit). Its first tracked scan registers it with the ordered
 * record of writes ({@link OrderedWrites#enterScanning}) until its commit or abort is over, so
 * every write it must validate against is recorded; untracked scans register nothing.
 */
final class TransactionScans {
  private final Database handle;
  private final OrderedWrites ordered;
  private final WriteBuffer writes;
  /** The transaction's snapshot, taken (with its baseline) on first use. */
  private final Supplier<Snapshot> snapshot;
  private final List<Cursor> open = new ArrayList<>(2);
  /** Null until the first tracked scan. */
  private ScannedRanges tracked;
  private boolean registered;

  TransactionScans(Database handle, OrderedWrites ordered, WriteBuffer writes, Supplier<Snapshot> snapshot) {
    this.handle = handle;
    this.ordered = ordered;
    this.writes = writes;
    this.snapshot = snapshot;
  }

  /** Open a cursor in the transaction's snapshot over its writes; a tracked one records its interval. */
  Cursor open(KeyRange range, boolean track) {
    Store store = Objects.requireNonNull(range, "range").storeIn(handle);
    handle.requireOwn(store);
    store.requireLive();
    handle.enter();
    try {
      if (track) {
        register();
      }
      ScannedRanges.Interval interval = track ? tracked.add(store, range.start(), range.end(), range.isReverse()) : null;
      Cursor[] self = new Cursor[1];
      self[0] = new Cursor(handle, range, snapshot.get(), writes, interval, () -> {
        open.remove(self[0]);
        handle.forgetCursor(self[0]);
      });
      open.add(self[0]);
      handle.rememberCursor(self[0]);
      return self[0];
    } finally {
      handle.exit();
    }
  }

  /**
   * Register for tracked scans; exact only before the transaction takes its baseline (see {@link
   * OrderedWrites}): the first tracked scan does it, or {@link Transaction#expectScans()} earlier.
   */
  void register() {
    if (!registered) {
      ordered.enterScanning();
      registered = true;
      tracked = new ScannedRanges();
    }
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
    if (registered) {
      ordered.leaveScanning();
      registered = false;
    }
  }
}
