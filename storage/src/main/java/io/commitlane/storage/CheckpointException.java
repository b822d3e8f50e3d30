package io.commitlane.storage;

/**
 * A checkpoint could not be taken; the message says why and what to do. Nothing partial is left
 * behind. {@link CheckpointRefusedException} when the target cannot take one.
 */
public class CheckpointException extends CommitlaneException {
  public CheckpointException(String message) {
    super(message);
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
