package io.commitlane.replication;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What applying one replicated commit did, as the leader replies it to the committer and as a
 * request id's record keeps it.
 *
 * @param index the log index of the entry
 * @param detail for a conflict the store and key, for a refusal the reason; empty otherwise
 */
record ApplyOutcome(Kind kind, long index, String detail) {

  enum Kind {
    /** Validated and written on every replica that applies the entry. */
    COMMITTED,
    /** A key or range it read was written after its snapshot: nothing written. */
    CONFLICTED,
    /** The entry does not decode or names something invalid: nothing written. */
    REFUSED,
    /** Its request id had committed before, at {@link #index}: nothing written again. */
    DUPLICATE
  }

  static ApplyOutcome committed(long index) {
    return new ApplyOutcome(Kind.COMMITTED, index, "");
  }

  byte[] encode() {
    byte[] d = detail.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + 8 + d.length).put((byte) kind.ordinal()).putLong(index).put(d).array();
  }

  static ApplyOutcome decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    Kind kind = Kind.values()[b.get()];
    long index = b.getLong();
    byte[] d = new byte[b.remaining()];
    b.get(d);
    return new ApplyOutcome(kind, index, new String(d, StandardCharsets.UTF_8));
  }
}
