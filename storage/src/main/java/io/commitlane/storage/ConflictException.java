package io.commitlane.storage;

/**
 * A transaction read or wrote a key that another commit changed after the transaction's snapshot.
 * Nothing of the transaction was written. Retry it on a fresh transaction, for example with
 * {@link Database#transact(TransactionFunction)}.
 */
public final class ConflictException extends CommitlaneException {
  private final long transactionId;
  private final int attempts;

  public ConflictException(long transactionId) {
    this(transactionId, 1);
  }

  public ConflictException(long transactionId, int attempts) {
    super("transaction " + transactionId + " conflicts with a commit made after its snapshot"
        + (attempts > 1 ? " (attempt " + attempts + ", retries exhausted)" : "")
        + "; nothing was written, retry it on a fresh transaction");
    this.transactionId = transactionId;
    this.attempts = attempts;
  }

  public long transactionId() {
    return transactionId;
  }

  /** How many attempts the retry helper made before giving up; 1 for a plain commit. */
  public int attempts() {
    return attempts;
  }

  @Override
  public boolean isRetryable() {
    return true;
  }

  /** Conflicts are control flow for retry loops: skip the costly stack trace. */
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
