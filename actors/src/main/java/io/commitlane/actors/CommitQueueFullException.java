package io.commitlane.actors;

import io.commitlane.storage.CommitlaneException;

/**
 * The database's bounded commit queue is full: the commit was not admitted and nothing was
 * written. Retry later (with backoff), or commit through a stream stage, which backpressures.
 */
public final class CommitQueueFullException extends CommitlaneException {
  private final int capacity;

  public CommitQueueFullException(String database, int capacity) {
    super("the commit queue of " + database + " is full (" + capacity + " commits waiting); nothing was written."
        + " Retry later, raise commitlane.commit-queue-capacity, or use a stream stage, which backpressures");
    this.capacity = capacity;
  }

  public int capacity() {
    return capacity;
  }

  @Override
  public boolean isRetryable() {
    return true;
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this; // overload is control flow for the caller: no stack trace
  }
}
