package io.commitlane.actors.stream;

import io.commitlane.storage.CommitlaneException;

/**
 * A {@link CommitFlow} in {@link FailureMode#FAIL_STREAM} stopped because a request failed for
 * good. The outcomes of every other request it had taken were emitted before this failure;
 * {@link #getCause()} is the request's failure (for example a {@link
 * io.commitlane.storage.ConflictException} whose retries were spent).
 */
public final class WriteFailedException extends CommitlaneException {
  private final transient WriteOutcome.Failed<?> outcome;

  public WriteFailedException(WriteOutcome.Failed<?> outcome) {
    super("commit of " + outcome.request() + " failed after " + outcome.attempts() + " attempt(s): " + outcome.cause()
        + "; the stream stopped (FailureMode.FAIL_STREAM). Outcomes of the requests taken before it were emitted;"
        + " use FailureMode.EMIT to receive failures as elements instead", outcome.cause());
    this.outcome = outcome;
  }

  /** The failed request's outcome. */
  public WriteOutcome.Failed<?> outcome() {
    return outcome;
  }

  /** The failed request's correlation value. */
  public Object correlation() {
    return outcome.correlation();
  }

  @Override
  public boolean isRetryable() {
    return outcome.cause() instanceof CommitlaneException c && c.isRetryable();
  }
}
