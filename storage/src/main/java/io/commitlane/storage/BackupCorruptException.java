package io.commitlane.storage;

import java.nio.file.Path;

/** A backup's files do not match what was recorded when it was taken; {@link #file()} names the first that does not. */
public final class BackupCorruptException extends BackupException {
  private final int backupId;
  private final Path file;

  public BackupCorruptException(int backupId, Path file, String what) {
    super("backup " + backupId + " is damaged: " + file + " " + what + "; restore another backup (list them with"
        + " BackupStore.list or ./commitlane backup list) and delete this one");
    this.backupId = backupId;
    this.file = file;
  }

  public int backupId() {
    return backupId;
  }

  /** The file that does not match (relative to the backup directory). */
  public Path file() {
    return file;
  }
}
