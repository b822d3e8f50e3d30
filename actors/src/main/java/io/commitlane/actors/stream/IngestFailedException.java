package io.commitlane.actors.stream;

import io.commitlane.storage.CommitlaneException;

/**
 * An ingestion sink stopped early: a batch failed for good ({@link FailureMode#FAIL_STREAM}), or
 * the stream failed upstream. {@link #totals()} says what was committed before it stopped, so the
 * caller can resume from {@link IngestTotals#committedPrefix()}.
 */
public final class IngestFailedException extends CommitlaneException {
  private final IngestTotals totals;
  private final transient IngestBatch<?> failedBatch;

  public IngestFailedException(IngestTotals totals, IngestBatch<?> failedBatch, Throwable cause) {
    super((failedBatch == null ? "ingestion stopped: the stream failed (" + cause + ")"
        : "ingestion stopped: " + failedBatch + " failed (" + cause + ")")
        + "; committed " + totals.records() + " records in " + totals.transactions() + " transactions; every record before index "
        + totals.committedPrefix() + " is committed, resume from there", cause);
    this.totals = totals;
    this.failedBatch = failedBatch;
  }

  /** What was committed (and what failed) before the sink stopped. */
  public IngestTotals totals() {
    return totals;
  }

  /** The batch that failed, or null if the stream failed for another reason. */
  public IngestBatch<?> failedBatch() {
    return failedBatch;
  }

  @Override
  public boolean isRetryable() {
    return getCause() instanceof CommitlaneException c && c.isRetryable();
  }
}
