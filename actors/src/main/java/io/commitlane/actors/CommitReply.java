package io.commitlane.actors;

import io.commitlane.storage.CommitResult;

/** What an actor that sent a commit gets back: exactly one reply per commit. */
public sealed interface CommitReply {
  /** The transaction id the reply is for. */
  long transactionId();

  /** Written (and, with {@code fsync} log durability, synced). */
  record Committed(long transactionId, CommitResult result) implements CommitReply {}

  /** Validation failed; nothing was written. Retryable on a fresh transaction. */
  record Conflicted(long transactionId) implements CommitReply {}

  /** The commit queue was full; nothing was written. Retryable later. */
  record Overloaded(long transactionId, int capacity) implements CommitReply {}

  /** Any other failure (closed database, RocksDB error, log failure), with its cause. */
  record Failed(long transactionId, Throwable cause) implements CommitReply {}
}
