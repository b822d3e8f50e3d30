package io.commitlane.storage;

import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * A write was refused because a RocksDB background operation failed (a flush or compaction, often
 * a full disk) and RocksDB stopped accepting writes. Nothing of the refused commit was written.
 * {@link #health()} says what failed. Retryable while RocksDB recovers on its own
 * ({@link DatabaseHealth.State#DEGRADED}: wait on {@link Database#resume()}); when it will not
 * ({@link DatabaseHealth.State#FAILED}), fix the cause, then close every handle and reopen the database.
 */
public final class BackgroundErrorException extends CommitlaneException {
  private final DatabaseHealth health;
  private final transient Status status;

  BackgroundErrorException(String path, DatabaseHealth health, RocksDBException cause) {
    super("RocksDB refuses writes to " + path + " after a background error, " + health
        + (health.state() == DatabaseHealth.State.DEGRADED
            ? "; RocksDB is recovering on its own: retry later"
            : "; fix the cause (check the device and RocksDB's LOG file), then close every handle and reopen the database"),
        cause);
    this.health = health;
    this.status = cause == null ? null : cause.getStatus();
  }

  /** The database's health when the write was refused. */
  public DatabaseHealth health() {
    return health;
  }

  /** RocksDB's status of the refused write, or {@code null}. */
  public Status status() {
    return status;
  }

  /** Retryable while RocksDB recovers on its own; not when the database must be reopened. */
  @Override
  public boolean isRetryable() {
    return health.state() == DatabaseHealth.State.DEGRADED;
  }
}
