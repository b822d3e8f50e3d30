package io.commitlane.storage;

import io.commitlane.storage.internal.commit.StageListener;

/**
 * The named points a commit passes, in order. Storage reports {@link #VALIDATED} to {@link
 * #FINISHED}; the actor pipeline adds {@link #ADMITTED}, {@link #DEQUEUED} and {@link #COMPLETED}.
 * A {@link StageListener} sees each one and may pause, delay or fail the commit there.
 */
public enum CommitStage {
  /** Accepted into the database's bounded commit queue (actor pipeline). */
  ADMITTED,
  /** Taken from the queue by a commit executor (actor pipeline). */
  DEQUEUED,
  /** Validation passed; the commit holds its lock buckets (or the serial commit lock). */
  VALIDATED,
  /** The commit hook ran (the transaction-log record, if any, is appended); still under locks. */
  LOG_APPENDED,
  /** The RocksDB write returned, buckets are stamped and the locks released; data is readable. */
  WRITTEN,
  /** The commit hook's after-write step ran (log watermark advanced, if any). */
  FINISHED,
  /** The caller's completion was handed to its executor (actor pipeline). */
  COMPLETED;

  /** Whether a failure injected at this stage leaves the commit's data written. */
  public boolean isAfterWrite() {
    return compareTo(WRITTEN) >= 0;
  }
}
