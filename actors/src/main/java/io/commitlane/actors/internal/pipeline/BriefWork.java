package io.commitlane.actors.internal.pipeline;

import io.commitlane.storage.Database;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What counts as a brief unit of work for a commit executor: a lone commit or merged group of at
 * most {@link #MAX_WRITES} writes, none of them logged, with no WAL sync to wait for and no stage
 * listener installed (a listener may hold a commit at any stage). Such a unit takes some tens of
 * microseconds, less than waking a parked executor costs on a small machine, so the queue is
 * left to the executor that will take it soon rather than spread over the executors (see {@link
 * CommitQueue#wakeOne}).
 */
final class BriefWork {
  /** Writes a brief unit may have: about a microsecond each with the WAL off. */
  static final int MAX_WRITES = 64;
  /**
   * How long after a brief unit started it still counts as brief. Past this the unit is taking
   * longer than expected, and admissions wake another executor again.
   */
  static final long WINDOW_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private final Database db;
  /** Commits wait for a RocksDB WAL sync: no unit of work is brief. */
  private final boolean waitsForWalSync;

  BriefWork(Database db) {
    this.db = db;
    this.waitsForWalSync = db.settings().rocksDbWal().ackAfterSync();
  }

  /** Whether any unit can be brief now: no WAL sync to wait for, no stage listener installed. */
  private boolean briefPossible() {
    return !waitsForWalSync && !db.hasStageListeners();
  }

  /** The writes {@code r} adds to a brief unit, or -1 if it is logged (a unit with it cannot be brief). */
  private static int writes(CommitRequest r) {
    return r.txn.logName() != null ? -1 : r.txn.writeCount();
  }

  /** Whether running {@code group} (or {@code lone}, without a group) is a brief unit. */
  boolean isBrief(CommitRequest lone, List<CommitRequest> group) {
    if (!briefPossible()) {
      return false;
    }
    if (group == null) {
      int w = writes(lone);
      return w >= 0 && w <= MAX_WRITES;
    }
    long total = 0;
    for (int i = 0; i < group.size(); i++) {
      int w = writes(group.get(i));
      total += w;
      if (w < 0 || total > MAX_WRITES) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code queued} commits the size of {@code r} ({@code r} itself at least) would fit in one brief unit. */
  boolean fitsOneUnit(CommitRequest r, int queued) {
    int w = writes(r);
    return w >= 0 && (long) w * Math.max(1, queued) <= MAX_WRITES && briefPossible();
  }
}
