package io.commitlane.storage;

import io.commitlane.storage.internal.files.NoSpace;

/**
 * A backup operation failed; the message says what happened and what to do. Subtypes say why: a
 * damaged backup ({@link BackupCorruptException}), an operation refused before it changed anything
 * ({@link BackupRefusedException}), a cancelled backup ({@link BackupCancelledException}).
 */
public class BackupException extends CommitlaneException {
  private final boolean outOfSpace;

  public BackupException(String message) {
    super(message);
    this.outOfSpace = false;
  }

  public BackupException(String message, Throwable cause) {
    super(message, cause);
    this.outOfSpace = NoSpace.causes(cause);
  }

  /**
   * Whether it failed for want of disk space where the backup goes: the disk filled up during the
   * copy (what it wrote was removed), or, for a {@link BackupRefusedException}, too little was
   * free to start. Free space, then try again.
   */
  public boolean isOutOfSpace() {
    return outOfSpace;
  }
}
