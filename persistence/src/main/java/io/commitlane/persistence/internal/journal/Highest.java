package io.commitlane.persistence.internal.journal;

import java.nio.ByteBuffer;

/**
 * A persistence id's {@code H} record: the highest sequence number ever written and how far its events were deleted.
 * It is never removed, so the highest survives deleting every event (Pekko's contract), and every write of the id
 * is conditional on it (one writer per id).
 */
public record Highest(long sequenceNr, long deletedTo) {
  static final Highest NONE = new Highest(0, 0);

  public static Highest decode(byte[] value) {
    if (value == null) {
      return NONE;
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    return new Highest(b.getLong(), b.getLong());
  }

  byte[] encode() {
    return ByteBuffer.allocate(16).putLong(sequenceNr).putLong(deletedTo).array();
  }
}
