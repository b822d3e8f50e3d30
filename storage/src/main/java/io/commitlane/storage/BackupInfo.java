package io.commitlane.storage;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One backup: its id, when it was taken, RocksDB's latest sequence number when its data was
 * captured (every write at or below it is in it), its size (RocksDB's files, counted once per
 * backup even when shared with others, plus its logs), the commitlane format it was written in,
 * the identity of the database it was taken of, its transaction logs, and its {@link State}.
 * {@code problem} says what is wrong with a backup that is not {@link State#COMPLETE} (empty
 * otherwise). Of a damaged backup whose metadata cannot be read, only the id is known (the
 * time is RocksDB's, else 0; the sequence is -1).
 */
public record BackupInfo(int id, Instant createdAt, long sequence, long sizeBytes, int formatVersion,
    String sourceIdentity, String sourcePath, List<CapturedLog> logs, State state, String problem) {
  /** What a backup directory holds of one backup. */
  public enum State {
    /** Every part is there and readable: it can be verified and restored. */
    COMPLETE,
    /** A crash or a failure interrupted it before it was complete; the next create or purge removes it. */
    INCOMPLETE,
    /**
     * A part of it is missing or unreadable (RocksDB's description of it, its metadata, a file it
     * holds): it cannot be restored. It stays, listed, until it is deleted ({@link BackupStore#delete}).
     */
    DAMAGED
  }

  public BackupInfo {
    logs = List.copyOf(logs);
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(problem, "problem");
  }

  /** A complete backup ({@code complete}) or an incomplete one, with no problem named. */
  public BackupInfo(int id, Instant createdAt, long sequence, long sizeBytes, int formatVersion, String sourceIdentity,
      String sourcePath, List<CapturedLog> logs, boolean complete) {
    this(id, createdAt, sequence, sizeBytes, formatVersion, sourceIdentity, sourcePath, logs,
        complete ? State.COMPLETE : State.INCOMPLETE, "");
  }

  /** Whether it is {@link State#COMPLETE}. */
  public boolean complete() {
    return state == State.COMPLETE;
  }

  /** This description in another state. */
  BackupInfo in(State newState, String newProblem) {
    return new BackupInfo(id, createdAt, sequence, sizeBytes, formatVersion, sourceIdentity, sourcePath, logs, newState, newProblem);
  }
}
