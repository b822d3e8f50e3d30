package io.commitlane.persistence;

import org.apache.pekko.persistence.state.exception.DurableStateException;

/**
 * A durable-state upsert whose revision is not the stored one plus 1: another write got there first, or the caller's
 * view is stale. Nothing was changed. Pekko's {@code DurableStateBehavior} fails (and is restarted by its supervisor,
 * which recovers the stored state); a plain caller reads the object again and retries with its revision plus 1.
 */
public final class RevisionConflictException extends DurableStateException {
  private final String persistenceId;
  private final long storedRevision;
  private final long attemptedRevision;

  public RevisionConflictException(String persistenceId, long storedRevision, long attemptedRevision) {
    super("cannot store revision " + attemptedRevision + " of \"" + persistenceId + "\": the stored revision is "
        + storedRevision + " (an upsert's revision is the stored one plus 1); nothing was changed");
    this.persistenceId = persistenceId;
    this.storedRevision = storedRevision;
    this.attemptedRevision = attemptedRevision;
  }

  public String persistenceId() {
    return persistenceId;
  }

  public long storedRevision() {
    return storedRevision;
  }

  public long attemptedRevision() {
    return attemptedRevision;
  }
}
