package io.commitlane.storage;

import io.commitlane.storage.internal.files.NoSpace;

/**
 * A checkpoint could not be taken; the message says why and what to do. Nothing partial is left
 * behind. {@link CheckpointRefusedException} when the target cannot take one.
 */
public class CheckpointException extends CommitlaneException {
  private final boolean outOfSpace;

  public CheckpointException(String message) {
    super(message);
    this.outOfSpace = false;
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
    this.outOfSpace = NoSpace.causes(cause);
  }

  /** Whether the disk where the checkpoint goes filled up (what it wrote was removed): free space, then try again. */
  public boolean isOutOfSpace() {
    return outOfSpace;
  }
}
