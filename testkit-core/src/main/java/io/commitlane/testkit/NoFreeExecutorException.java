package io.commitlane.testkit;

/**
 * A test waited for a commit that needs a commit executor while the test's own barriers and
 * schedules hold every executor: the wait could only have timed out. The message names the holds,
 * {@code commit-threads}, and how to raise it.
 */
public final class NoFreeExecutorException extends AssertionError {
  public NoFreeExecutorException(String message) {
    super(message);
  }
}
