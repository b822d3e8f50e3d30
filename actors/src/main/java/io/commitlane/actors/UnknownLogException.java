package io.commitlane.actors;

import io.commitlane.storage.CommitlaneException;
import java.nio.file.Path;
import java.util.Collection;

/**
 * A read named a transaction log the database does not have. Reading a log (a change feed, a
 * {@link FeedSnapshot}, {@link CommitlaneDatabase#transactionLog}) never creates one: a log is
 * created by the first commit that writes to it (or by {@link
 * CommitlaneDatabase#createTransactionLog}). Nothing was created. Not retryable as it is: check the
 * name, or read after that first commit.
 */
public final class UnknownLogException extends CommitlaneException {
  private final String log;

  public UnknownLogException(String log, Path database, Collection<String> logs) {
    super("database " + database + " has no transaction log '" + log + "' (its logs: " + (logs.isEmpty() ? "none" : String.join(", ", logs))
        + "); a log is created by the first commit that writes to it, and reading one creates nothing. Check the name, read"
        + " after that commit, or create the log first (CommitlaneDatabase.createTransactionLog)");
    this.log = log;
  }

  /** The log's name. */
  public String log() {
    return log;
  }
}
