package io.commitlane.storage;

/**
 * The base of every error commitlane reports. Unchecked, because most callers either retry
 * ({@link #isRetryable()}) or let the failure propagate to their supervisor.
 */
public class CommitlaneException extends RuntimeException {
  public CommitlaneException(String message) {
    super(message);
  }

  public CommitlaneException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether running the same work again, on a fresh transaction, may succeed. */
  public boolean isRetryable() {
    return false;
  }
}
