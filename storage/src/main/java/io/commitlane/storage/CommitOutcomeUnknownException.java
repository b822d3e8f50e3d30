package io.commitlane.storage;

/**
 * The commit failed after its transaction-log record was appended, and the record could not be
 * made dead either (neither its abort marker nor its replay marker could be written, for example
 * because the disk is full). Nothing of the commit is visible now, but a later open may replay
 * the record: after a reopen the commit may or may not be there, whole or not at all. To keep
 * that from putting an old value over a newer one, the database refuses every further commit
 * ({@link DatabaseStoppedException}) until it is reopened. Free disk space, reopen, then read the
 * keys to learn the outcome. Not retryable on the same database handle.
 */
public final class CommitOutcomeUnknownException extends CommitlaneException {
  private final long transactionId;

  public CommitOutcomeUnknownException(long transactionId, String what, Throwable cause) {
    super("the outcome of transaction " + transactionId + " is unknown: " + what + "; a reopen may still"
        + " apply it, so the database refuses further commits until it is reopened (free disk space"
        + " first, then read the keys to learn the outcome)", cause);
    this.transactionId = transactionId;
  }

  public long transactionId() {
    return transactionId;
  }
}
