package io.commitlane.storage.internal.commit;

import java.util.concurrent.CompletableFuture;

/**
 * What a transaction-log hook attaches to a commit in {@link CommitHook#beforeWrite} ({@link
 * PendingCommit#attach}): where the commit's record went, and, when the log's writer finishes
 * the record after the commit's write, the acknowledgement it completes then. The commit's {@link
 * io.commitlane.storage.CommitResult} carries it ({@link io.commitlane.storage.CommitResult#logRecord}).
 * Storage knows no transaction log: the hook finds its log again by {@link #log()}.
 *
 * <p>INTERNAL API: applications read a commit's record through {@code
 * io.commitlane.actors.LogAppend.of(result)}.
 */
public final class LogRecordRef {
  private final String log;
  private final long position;
  private final long timestamp;
  /** Set on the committing thread in {@link CommitHook#afterWrite}, read by whoever delivers the outcome. */
  private volatile CompletableFuture<Void> acknowledgement;

  public LogRecordRef(String log, long position, long timestamp) {
    this.log = log;
    this.position = position;
    this.timestamp = timestamp;
  }

  /** The log's name. */
  public String log() {
    return log;
  }

  /** The record's position in its log. */
  public long position() {
    return position;
  }

  /** The record's timestamp: milliseconds, unique and increasing per database. */
  public long timestamp() {
    return timestamp;
  }

  /**
   * Completes when the log's writer finished the record and made it as durable as the log
   * promises; null when the committing thread finished the record itself.
   */
  public CompletableFuture<Void> acknowledgement() {
    return acknowledgement;
  }

  /** For the hook's after-write step: the record is finished later, when {@code done} completes. */
  public void acknowledgeWhen(CompletableFuture<Void> done) {
    this.acknowledgement = done;
  }

  @Override
  public String toString() {
    return "LogRecordRef[" + log + " @ " + position + ", ts " + timestamp + "]";
  }
}
