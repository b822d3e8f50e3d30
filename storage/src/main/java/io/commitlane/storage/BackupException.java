package io.commitlane.storage;

/**
 * A backup operation failed; the message says what happened and what to do. Subtypes say why: a
 * damaged backup ({@link BackupCorruptException}), an operation refused before it changed anything
 * ({@link BackupRefusedException}), a cancelled backup ({@link BackupCancelledException}).
 */
public class BackupException extends CommitlaneException {
  public BackupException(String message) {
    super(message);
  }

  public BackupException(String message, Throwable cause) {
    super(message, cause);
  }
}
