package io.commitlane.replication;

import io.commitlane.storage.CommitlaneException;

/**
 * The replicated database could not answer now: no leader was reachable within the request's
 * timeout (a majority is down or partitioned away), or the local replica is restoring a snapshot.
 * A commit that failed this way may or may not have been applied; resend it with the same request
 * id to find out without applying it twice.
 */
public final class ReplicaUnavailableException extends CommitlaneException {
  public ReplicaUnavailableException(String message) {
    super(message);
  }

  public ReplicaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
