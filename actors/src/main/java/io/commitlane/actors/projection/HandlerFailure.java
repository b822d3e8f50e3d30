package io.commitlane.actors.projection;

/**
 * What a projection does when its handler throws ({@code commitlane.projection.on-handler-failure}).
 * Either way the failed batch wrote nothing: its transaction, which also holds the position, was
 * aborted.
 */
public enum HandlerFailure {
  /**
   * Stop, with a {@link ProjectionHandlerException} (the default): a handler that throws on a
   * record usually throws on it every time, and a stopped projection with its error in {@link
   * ProjectionStatus#lastError()} is what an operator can act on.
   */
  STOP,
  /**
   * Read the stored position again and run the batch again after the restart backoff, at most
   * {@code restart-backoff.max-restarts} times in a row; then stop with the error.
   */
  RETRY
}
