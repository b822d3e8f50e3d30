package io.commitlane.storage;

/** A backup operation was refused before it changed anything (a bad path, a target in use, another writer, too little space). */
public final class BackupRefusedException extends BackupException {
  public BackupRefusedException(String message) {
    super(message);
  }
}
