package io.commitlane.storage;

/** A checkpoint could not be taken; the message says why and what to do. Nothing partial is left behind. */
public final class CheckpointException extends CommitlaneException {
  public CheckpointException(String message) {
    super(message);
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
