package io.commitlane.persistence;


/**
 * A persistence id or tag that cannot be stored: empty, too long, or not well-formed Unicode (an unpaired
 * surrogate has no lossless UTF-8 form, so two such ids could share keys). The journal rejects the write that
 * carries it (Pekko's {@code onPersistRejected}); nothing is written.
 */
public final class InvalidNameException extends IllegalArgumentException {
  public InvalidNameException(String message) {
    super(message);
  }
}
