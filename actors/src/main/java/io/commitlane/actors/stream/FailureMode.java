package io.commitlane.actors.stream;

/** What a stream stage does with a request that failed for good (conflict retries spent, or any other failure). */
public enum FailureMode {
  /** Emit it as a {@link WriteOutcome.Failed} element and go on. */
  EMIT,
  /**
   * Stop at the first failure: pull nothing more, let the requests already taken finish and
   * emit their outcomes (the failed one included, as {@link WriteOutcome.Failed}), then fail the
   * stream with {@link WriteFailedException}. Every request taken still gets exactly one outcome.
   */
  FAIL_STREAM
}
