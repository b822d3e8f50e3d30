package io.commitlane.actors.projection;

import io.commitlane.storage.CommitlaneException;

/**
 * A batch of a projection was not committed because the projection's stored position was not the
 * one its runner went on from: another runner of the same projection committed a batch first, or
 * the position was changed by hand. Its writes were not applied. The runner that gets it reads the
 * stored position again and goes on from there, so two runners of one projection never both apply
 * a batch; it is counted in {@link ProjectionStatus#conflicts()}. The same happens when the
 * handler's own reads were changed by another commit before the batch committed.
 */
public final class ProjectionConflictException extends CommitlaneException {
  /** {@link #stored()} when the conflict was found at commit, without reading the position again. */
  public static final long UNKNOWN = Long.MIN_VALUE;

  private final String projection;
  private final long expected;
  private final long stored;

  public ProjectionConflictException(String projection, long expected, long stored, Throwable cause) {
    super(message(projection, expected, stored, cause), cause);
    this.projection = projection;
    this.expected = expected;
    this.stored = stored;
  }

  private static String message(String projection, long expected, long stored, Throwable cause) {
    String what = stored == UNKNOWN
        ? "its commit conflicted (" + cause.getMessage() + "): another runner of it committed first, or another commit changed what"
            + " its handler read"
        : "its stored position is " + stored + ", not " + expected + ": another runner of it committed a batch first, or the"
            + " position was changed";
    return "projection '" + projection + "': the batch after position " + expected + " was not committed: " + what
        + "; nothing of it was written. The runner reads the stored position again and goes on from there";
  }

  public String projection() {
    return projection;
  }

  /** The position the runner went on from. */
  public long expected() {
    return expected;
  }

  /** The position found stored, or {@link #UNKNOWN}. */
  public long stored() {
    return stored;
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
