package io.commitlane.storage;

import java.util.Objects;

/**
 * A backup operation was refused before it changed anything; {@link #reason()} says why, the
 * message what to do. Retryable only while another writer holds the backup directory or the
 * restore's target ({@link Reason#IN_USE}).
 */
public final class BackupRefusedException extends BackupException {
  /** Why an operation was refused. */
  public enum Reason {
    /**
     * Another backup, restore, delete or purge holds the backup directory, or a database is open
     * at a restore's target: try again once it is done.
     */
    IN_USE,
    /** Too little free space for the backup where it goes: free space or purge old backups. */
    NOT_ENOUGH_SPACE,
    /**
     * A path that cannot serve: a link or a file where a directory belongs, one directory inside
     * the other, a backup directory of another database, a non-empty or foreign restore target.
     */
    INVALID_PATH,
    /** The backup asked for is not there. */
    NO_SUCH_BACKUP,
    /** The backup was written by a newer commitlane than this one reads. */
    NEWER_FORMAT
  }

  private final Reason reason;

  public BackupRefusedException(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public Reason reason() {
    return reason;
  }

  @Override
  public boolean isOutOfSpace() {
    return reason == Reason.NOT_ENOUGH_SPACE;
  }

  /** True only for {@link Reason#IN_USE}: the same call may succeed once the other writer is done. */
  @Override
  public boolean isRetryable() {
    return reason == Reason.IN_USE;
  }
}
