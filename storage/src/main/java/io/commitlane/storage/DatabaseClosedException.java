package io.commitlane.storage;

import java.nio.file.Path;

/** The database handle (or the transaction's handle) was closed; nothing more can run on it. */
public final class DatabaseClosedException extends CommitlaneException {
  public DatabaseClosedException(Path path) {
    super("database " + path + " is closed; open it again to continue");
  }
}
