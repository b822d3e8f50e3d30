package io.commitlane.replication;

/**
 * A change feed asked for transaction-log records that were trimmed ({@code
 * commitlane.replication.log-retention}): the records after {@link #afterIndex()} up to {@link
 * #trimmedThrough()} are gone. Open the feed after {@code trimmedThrough()} to read what is left,
 * knowing that what was between is missed.
 */
public final class ChangesTrimmedException extends RuntimeException {
  private final String log;
  private final long afterIndex;
  private final long trimmedThrough;

  ChangesTrimmedException(String log, long afterIndex, long trimmedThrough) {
    super("log '" + log + "': the records after index " + afterIndex + " were trimmed through index " + trimmedThrough
        + " (commitlane.replication.log-retention); open the feed after " + trimmedThrough + " to read what is left");
    this.log = log;
    this.afterIndex = afterIndex;
    this.trimmedThrough = trimmedThrough;
  }

  public String log() {
    return log;
  }

  public long afterIndex() {
    return afterIndex;
  }

  public long trimmedThrough() {
    return trimmedThrough;
  }
}
