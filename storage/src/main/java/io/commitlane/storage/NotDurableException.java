package io.commitlane.storage;

/**
 * The commit's writes reached RocksDB (other readers may already see them), but what was to make
 * them durable failed: for example its transaction-log record could not be written or synced
 * because the disk is full. The commit is not acknowledged: after a crash it may be gone. The
 * part that failed (the log) refuses further work until the database is reopened; the cause says
 * what happened. Not retryable on the same database handle.
 */
public final class NotDurableException extends CommitlaneException {
  private final long transactionId;

  public NotDurableException(long transactionId, String what, Throwable cause) {
    super("transaction " + transactionId + " was written but is not durable: " + what
        + "; it may be lost after a crash, and the failing part refuses further commits until the"
        + " database is reopened (free disk space first)", cause);
    this.transactionId = transactionId;
  }

  public long transactionId() {
    return transactionId;
  }
}
