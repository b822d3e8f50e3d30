package io.commitlane.persistence;

import io.commitlane.storage.CommitlaneException;

/**
 * A write of a persistence id starts at or below the highest sequence number already stored for it: another writer
 * (a second incarnation of the entity, after a partition or a slow handoff) wrote it since this one recovered. The
 * write fails and nothing of it is stored, so two writers can never interleave events; Pekko stops the persistent
 * actor, which recovers from the journal when it starts again.
 */
public final class WriterConflictException extends CommitlaneException {
  private final String persistenceId;
  private final long highestStored;
  private final long firstWritten;

  public WriterConflictException(String persistenceId, long highestStored, long firstWritten) {
    super("persistence id \"" + persistenceId + "\" already holds events up to sequence number " + highestStored
        + ", so a write starting at " + firstWritten + " would overwrite or interleave with another writer's events;"
        + " nothing was written. Only one incarnation of an entity may write: let this one stop and recover");
    this.persistenceId = persistenceId;
    this.highestStored = highestStored;
    this.firstWritten = firstWritten;
  }

  public String persistenceId() {
    return persistenceId;
  }

  public long highestStored() {
    return highestStored;
  }

  public long firstWritten() {
    return firstWritten;
  }
}
