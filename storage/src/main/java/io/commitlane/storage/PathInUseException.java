package io.commitlane.storage;

/**
 * The path is in use in a way that refuses the request: open in another process (RocksDB's lock
 * is held), open in this process with other database-wide options, or destroyed while a handle
 * is open.
 */
public final class PathInUseException extends CommitlaneException {
  public PathInUseException(String message) {
    super(message);
  }
}
