package io.commitlane.storage;

/**
 * The path is already open in this process in a way that refuses the request: opened with other
 * database-wide options, or destroyed while a handle is open.
 */
public final class PathInUseException extends CommitlaneException {
  public PathInUseException(String message) {
    super(message);
  }
}
