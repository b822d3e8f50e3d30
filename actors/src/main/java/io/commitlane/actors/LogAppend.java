package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.TransactionLog;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where a commit's record went in its transaction log: the attachment of the {@link
 * CommitResult} of a commit that used a log ({@link io.commitlane.storage.Transaction#useLog}).
 */
public final class LogAppend {
  private final String log;
  private final long position;
  private final long timestamp;
  @io.commitlane.annotation.InternalApi
  public final TransactionLog store;
  /** {@code txlog.append = actor}: completes when the log's writer finished the record and made it durable. */
  @io.commitlane.annotation.InternalApi
  public volatile CompletableFuture<Void> acknowledgement;

  @io.commitlane.annotation.InternalApi
  public LogAppend(String log, long position, long timestamp, TransactionLog store) {
    this.log = log;
    this.position = position;
    this.timestamp = timestamp;
    this.store = store;
  }

  /** The log append of a commit result, if the commit logged anything. */
  public static Optional<LogAppend> of(CommitResult result) {
    return result.attachment() instanceof LogAppend a ? Optional.of(a) : Optional.empty();
  }

  /** The log's name. */
  public String log() {
    return log;
  }

  /** The record's position (see {@link LogPosition}). */
  public long position() {
    return position;
  }

  /** The record's timestamp: milliseconds, unique and increasing per database. */
  public long timestamp() {
    return timestamp;
  }

  @Override
  public String toString() {
    return "LogAppend[" + log + " @ " + LogPosition.toString(position) + ", ts " + timestamp + "]";
  }
}
