package io.commitlane.storage;

import java.nio.file.Path;

/**
 * A write (a commit, a non-transactional write, a flush, a store created or dropped) reached a
 * database opened with {@link Database#openReadOnly}. Nothing was written.
 */
public final class ReadOnlyDatabaseException extends CommitlaneException {
  public ReadOnlyDatabaseException(Path path, String what) {
    super("cannot " + what + ": database " + path + " is open read-only; open it with Database.open (or"
        + " Commitlane.get(system).open) to write");
  }
}
