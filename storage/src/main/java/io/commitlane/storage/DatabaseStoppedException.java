package io.commitlane.storage;

/**
 * The database refuses commits because an earlier commit's outcome could not be settled (the
 * cause, a {@link CommitOutcomeUnknownException}): a commit accepted now could be overwritten by
 * that one at the next open. Nothing of this commit was written. Free disk space and reopen the
 * database; it accepts commits again after the reopen. Not retryable on the same handle.
 */
public final class DatabaseStoppedException extends CommitlaneException {
  public DatabaseStoppedException(CommitOutcomeUnknownException cause) {
    super("the database refuses commits until it is reopened: the outcome of transaction "
        + cause.transactionId() + " could not be settled (see the cause); nothing of this commit was"
        + " written; free disk space and reopen the database", cause);
  }
}
