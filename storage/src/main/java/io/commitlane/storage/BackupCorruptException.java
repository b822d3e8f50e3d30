package io.commitlane.storage;

import java.nio.file.Path;

/**
 * A backup is damaged: a file of it is missing, unreadable or changed since it was taken, a file
 * in it is not one it was taken with, or a path it names leads outside the backup directory.
 * {@link #file()} names the first such file.
 */
public final class BackupCorruptException extends BackupException {
  private final int backupId;
  private final Path file;
  private final String what;

  public BackupCorruptException(int backupId, Path file, String what) {
    this(backupId, file, what, "restore another backup (list them with BackupStore.list or ./commitlane backup list)"
        + " and delete this one");
  }

  /** {@code whatToDo} instead of the advice to restore another backup. */
  BackupCorruptException(int backupId, Path file, String what, String whatToDo) {
    super("backup " + backupId + " is damaged: " + file + " " + what + "; " + whatToDo);
    this.backupId = backupId;
    this.file = file;
    this.what = what;
  }

  public int backupId() {
    return backupId;
  }

  /** The file that does not match (relative to the backup directory). */
  public Path file() {
    return file;
  }

  /** The damage alone: the file and what is wrong with it, without the advice. */
  String damage() {
    return file + " " + what;
  }
}
