package io.commitlane.txlog;

import io.commitlane.txlog.internal.append.LogWriterHost;

/** How concurrent appends to one {@link TransactionLog} are ordered and written. */
public enum AppendMode {
  /**
   * One append lock: each append claims its position and writes its frame to the file (one
   * positional write) before the next may start. A returned append is in the operating system.
   */
  SERIALIZED,
  /**
   * The leaderless path: an append claims its position and byte range in one short
   * critical section (no I/O, no allocation), copies its frame into its slice of the active
   * in-memory buffer without a lock, and returns. Buffers reach the file in a sync that swaps the
   * full buffer for the empty one in constant time and writes outside the lock; concurrent syncs
   * collapse into one. {@link TransactionLog#finish} syncs before it publishes completion, so a
   * finished record is in the operating system (PROCESS) and the committed watermark never passes
   * bytes a reader could not read. Completion is published out of order through a {@link
   * LinkBufWatermark}. An I/O error after records were claimed stops the log for good ({@link
   * LogFailedException}).
   */
  LEADERLESS,
  /**
   * One writer, after BookKeeper's journal: an append claims its position and timestamp and queues
   * its frame in one short critical section (no I/O, no wait), and the log's writer (the
   * transaction-log actor under commitlane's actors, see {@link LogWriterHost}; else a thread of
   * the log's own) writes everything queued with one write per batch, forces once per batch under
   * {@link Durability#FSYNC}, then finishes the batch's records, samples RocksDB's sequence once
   * and completes the acknowledgements ({@link TransactionLog#finishAsync}) it made good. A
   * committing thread never writes nor waits. An I/O error stops the log for good ({@link
   * LogFailedException}).
   */
  ACTOR
}
