package io.commitlane.persistence;

/**
 * A write (one {@code persist} or {@code persistAll}, a snapshot, a durable state) is larger than the largest commit
 * the database takes: with a transaction log, one log record holds the whole write, and a record never spans two
 * segments. An event write is rejected (Pekko's {@code onPersistRejected}), a snapshot save or state upsert fails;
 * nothing is written and the plugin goes on. Raise the database's {@code commitlane.txlog.max-segment-size}, or write
 * less at once.
 */
public final class WriteTooLargeException extends IllegalArgumentException {
  public WriteTooLargeException(String message) {
    super(message);
  }
}
