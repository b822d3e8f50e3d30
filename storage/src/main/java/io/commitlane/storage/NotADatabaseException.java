package io.commitlane.storage;

import java.nio.file.Path;

/**
 * {@link Database#destroy} was given a directory that holds no commitlane database (no RocksDB
 * {@code CURRENT} file naming a valid manifest, no transaction logs): nothing was deleted.
 */
public final class NotADatabaseException extends CommitlaneException {
  public NotADatabaseException(Path path, String why) {
    super("refusing to destroy " + path + ": it is not a commitlane database (" + why + "); nothing was deleted");
  }
}
