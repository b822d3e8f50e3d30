package io.commitlane.persistence;

/**
 * A write whose sequence numbers Pekko never sends: not positive, not consecutive within one atomic write, or of
 * several persistence ids in one atomic write. The journal rejects it; nothing is written.
 */
public final class InvalidSequenceNumberException extends IllegalArgumentException {
  public InvalidSequenceNumberException(String message) {
    super(message);
  }
}
