package io.commitlane.actors;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.internal.commit.LogRecordRef;
import io.commitlane.txlog.LogPosition;
import java.util.Optional;

/**
 * Where a commit's record went in its transaction log, read from the {@link CommitResult} of a
 * commit that used a log ({@link io.commitlane.storage.Transaction#useLog}). Two reads of one
 * result are equal.
 */
public final class LogAppend {
  private final String log;
  private final long position;
  private final long timestamp;

  private LogAppend(String log, long position, long timestamp) {
    this.log = log;
    this.position = position;
    this.timestamp = timestamp;
  }

  /** The log append of a commit result, if the commit logged anything. */
  public static Optional<LogAppend> of(CommitResult result) {
    LogRecordRef r = result.logRecord();
    return r == null ? Optional.empty() : Optional.of(new LogAppend(r.log(), r.position(), r.timestamp()));
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
  public boolean equals(Object o) {
    return o instanceof LogAppend a && a.position == position && a.timestamp == timestamp && a.log.equals(log);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(position) * 31 + log.hashCode();
  }

  @Override
  public String toString() {
    return "LogAppend[" + log + " @ " + LogPosition.toString(position) + ", ts " + timestamp + "]";
  }
}
