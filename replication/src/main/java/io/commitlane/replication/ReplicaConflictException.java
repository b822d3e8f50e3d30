package io.commitlane.replication;

import io.commitlane.storage.CommitlaneException;

/**
 * A replicated commit lost a race: a key or range it read was written by a commit that the group's
 * log holds before it. Nothing was written; run the transaction again on a fresh snapshot.
 */
public final class ReplicaConflictException extends CommitlaneException {
  private final long index;

  ReplicaConflictException(long index, String what) {
    super("replicated commit at log index " + index + " conflicted: " + what
        + " was written after the transaction's snapshot; nothing was written, run it again");
    this.index = index;
  }

  /** The log index of the entry that was refused. */
  public long index() {
    return index;
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
