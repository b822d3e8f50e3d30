package io.commitlane.replication;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What applying one replicated commit did, as the leader replies it to the committer and as a
 * request id's record keeps it.
 *
 * @param index the log index of the entry
 * @param slot the commit's place in its entry (0 for an entry of one commit): commits of one entry
 *     are validated and applied in slot order
 * @param detail for a conflict the store and key, for a refusal the reason; empty otherwise
 */
record ApplyOutcome(Kind kind, long index, int slot, String detail) {

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

  /** Marks an encoded outcome that carries a slot (outcomes without one are in slot 0). */
  private static final int WITH_SLOT = 0x80;

  ApplyOutcome(Kind kind, long index, String detail) {
    this(kind, index, 0, detail);
  }

  static ApplyOutcome committed(long index, int slot) {
    return new ApplyOutcome(Kind.COMMITTED, index, slot, "");
  }

  static ApplyOutcome committed(long index) {
    return committed(index, 0);
  }

  byte[] encode() {
    byte[] d = detail.getBytes(StandardCharsets.UTF_8);
    if (slot == 0) {
      return ByteBuffer.allocate(1 + 8 + d.length).put((byte) kind.ordinal()).putLong(index).put(d).array();
    }
    return ByteBuffer.allocate(1 + 8 + 4 + d.length).put((byte) (kind.ordinal() | WITH_SLOT)).putLong(index).putInt(slot).put(d).array();
  }

  static ApplyOutcome decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int k = b.get() & 0xFF;
    Kind kind = Kind.values()[k & ~WITH_SLOT];
    long index = b.getLong();
    int slot = (k & WITH_SLOT) != 0 ? b.getInt() : 0;
    byte[] d = new byte[b.remaining()];
    b.get(d);
    return new ApplyOutcome(kind, index, slot, new String(d, StandardCharsets.UTF_8));
  }
}
