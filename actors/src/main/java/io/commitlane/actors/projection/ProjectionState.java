package io.commitlane.actors.projection;

/** Where a projection's runner is. */
public enum ProjectionState {
  /** Reading its stored position (when it starts, and again after a conflict). */
  STARTING,
  /** Reading records and committing batches, or waiting for new records. */
  RUNNING,
  /** Waiting out its restart backoff after a failed batch; it then reads its stored position again. */
  RESTARTING,
  /** Stopped on request, after the outcome of the batch it was committing. */
  STOPPED,
  /** Stopped by an error: {@link ProjectionStatus#lastError()}. */
  FAILED
}
