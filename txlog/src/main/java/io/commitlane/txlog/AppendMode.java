package io.commitlane.txlog;

/** How concurrent appends to one {@link TransactionLog} are ordered and written. */
public enum AppendMode {
  /**
   * One append lock: each append claims its position and writes its frame to the file (one
   * positional write) before the next may start. A returned append is in the operating system.
   */
  SERIALIZED,
  /**
   * Seed 004's leaderless path: an append claims its position and byte range in one short
   * critical section (no I/O, no allocation), copies its frame into its slice of the active
   * in-memory buffer without a lock, and returns. Buffers reach the file in a sync that swaps the
   * full buffer for the empty one in constant time and writes outside the lock; concurrent syncs
   * collapse into one. {@link TransactionLog#finish} syncs before it publishes completion, so a
   * finished record is in the operating system (PROCESS) and the committed watermark never passes
   * bytes a reader could not read. Completion is published out of order through a {@link
   * LinkBufWatermark}. An I/O error after records were claimed stops the log for good ({@link
   * LogFailedException}).
   */
  LEADERLESS
}
