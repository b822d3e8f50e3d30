package io.commitlane.storage;

import java.nio.file.Path;

/**
 * A directory that holds no commitlane database (no RocksDB {@code CURRENT} file naming a valid
 * manifest, no transaction logs) was given where one was needed: {@link Database#destroy} deleted
 * nothing, {@link Database#openReadOnly} opened nothing.
 */
public final class NotADatabaseException extends CommitlaneException {
  /** From {@link Database#destroy}: nothing was deleted. */
  public NotADatabaseException(Path path, String why) {
    super("refusing to destroy " + path + ": it is not a commitlane database (" + why + "); nothing was deleted");
  }

  /** {@code action} (for example "open read-only") needs a database at {@code path}, and there is none. */
  public NotADatabaseException(String action, Path path, String why) {
    super("cannot " + action + " " + path + ": it is not a commitlane database (" + why + ")");
  }
}
