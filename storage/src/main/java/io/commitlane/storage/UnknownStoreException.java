package io.commitlane.storage;

import java.nio.file.Path;

/** No store of that name exists in the database (never created, or already dropped). Not retryable. */
public final class UnknownStoreException extends CommitlaneException {
  private final String store;

  public UnknownStoreException(String store, Path path) {
    super("database " + path + " has no store '" + store + "'; nothing was changed");
    this.store = store;
  }

  public String store() {
    return store;
  }
}
