package io.commitlane.actors.projection;

import io.commitlane.storage.CommitlaneException;

/**
 * A projection's handler threw on a batch (its {@link #getCause()}): the batch's transaction was
 * aborted, so neither its writes nor its position were stored. What happens next is {@link
 * ProjectionSettings#onHandlerFailure()}: stop with this error, or run the batch again from the
 * stored position after the restart backoff.
 */
public final class ProjectionHandlerException extends CommitlaneException {
  private final String projection;
  private final long after;
  private final long through;

  public ProjectionHandlerException(String projection, long after, long through, int records, Throwable cause) {
    super("projection '" + projection + "': its handler failed on the batch of " + records + " records after position " + after
        + " (through " + through + "): " + cause + "; nothing of the batch was written", cause);
    this.projection = projection;
    this.after = after;
    this.through = through;
  }

  public String projection() {
    return projection;
  }

  /** The stored position the batch comes after (-1: the projection had none). */
  public long after() {
    return after;
  }

  /** The position of the batch's last record. */
  public long through() {
    return through;
  }
}
