package io.commitlane.actors.projection;

import java.time.Duration;

/**
 * A projection runner as it is now.
 *
 * @param projection the projection's name
 * @param state where the runner is
 * @param position the stored position of the last record the projection handled, as this runner
 *     last read or committed it; -1 before it handled any (or while it reads it at the start)
 * @param lag how long the oldest source record this runner has read but not yet committed has
 *     been in the log (now minus the record's timestamp); zero when it has handled everything it
 *     could read. A runner whose downstream does not pull keeps reading up to a batch ahead, so
 *     its lag grows while it is held back.
 * @param batches batches this runner committed
 * @param records records in those batches
 * @param conflicts batches that were not committed because another runner of the projection
 *     committed first, or another commit changed what the handler read ({@link
 *     ProjectionConflictException}): each was read again from the stored position
 * @param restarts restarts after a failed batch (a handler error under {@link HandlerFailure#RETRY},
 *     or a failure of the database that may pass)
 * @param lastError the last failure ({@code Type: message}), or null if there was none; kept after
 *     a later batch succeeds
 */
public record ProjectionStatus(String projection, ProjectionState state, long position, Duration lag, long batches,
    long records, long conflicts, long restarts, String lastError) {
  /** Running, with everything it could read handled. */
  public boolean caughtUp() {
    return state == ProjectionState.RUNNING && lag.isZero();
  }
}
