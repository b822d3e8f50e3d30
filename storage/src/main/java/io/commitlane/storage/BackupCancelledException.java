package io.commitlane.storage;

/** A backup was cancelled; what it had written was removed and earlier backups are untouched. */
public final class BackupCancelledException extends BackupException {
  public BackupCancelledException(String message) {
    super(message);
  }
}
