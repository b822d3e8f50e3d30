package io.commitlane.storage;

/**
 * A checkpoint was refused before anything was written: its target exists already, or one of the
 * database and the target is inside the other. Choose another target.
 */
public final class CheckpointRefusedException extends CheckpointException {
  public CheckpointRefusedException(String message) {
    super(message);
  }
}
