package io.commitlane.testkit;

/** A schedule step or barrier did not happen in time; the message says where each commit was. */
public final class StageTimeoutException extends AssertionError {
  public StageTimeoutException(String message) {
    super(message);
  }
}
