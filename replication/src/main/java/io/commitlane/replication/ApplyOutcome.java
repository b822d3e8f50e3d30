package io.commitlane.replication;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What applying one replicated commit did, as the leader replies it to the committer and as a
 * request id's record keeps it.
 *
 * @param index the log index of the entry
 * @param detail for a conflict the store and key, for a refusal the reason; empty otherwise
 * @param actual for {@link Kind#EXPECTATIONS}, what each expected key held at the entry's place in
 *     the log (null: absent), in the order of the commit's expectations; empty otherwise
 */
record ApplyOutcome(Kind kind, long index, String detail, List<byte[]> actual) {

  /** New kinds go at the end: replies carry the ordinal. */
  enum Kind {
    /** Validated and written on every replica that applies the entry. */
    COMMITTED,
    /** A key or range it read was written after its snapshot: nothing written. */
    CONFLICTED,
    /** The entry does not decode or names something invalid: nothing written. */
    REFUSED,
    /** Its request id had committed before, at {@link #index}: nothing written again. */
    DUPLICATE,
    /** A key did not hold its expected value at the entry's place in the log: nothing written. */
    EXPECTATIONS
  }

  private static final int ABSENT = -1;

  ApplyOutcome {
    actual = actual == null ? List.of() : java.util.Collections.unmodifiableList(new ArrayList<>(actual));
  }

  ApplyOutcome(Kind kind, long index, String detail) {
    this(kind, index, detail, List.of());
  }

  static ApplyOutcome committed(long index) {
    return new ApplyOutcome(Kind.COMMITTED, index, "");
  }

  byte[] encode() {
    byte[] d = detail.getBytes(StandardCharsets.UTF_8);
    int size = 1 + 8 + d.length;
    if (kind == Kind.EXPECTATIONS) {
      size += 4;
      for (byte[] v : actual) {
        size += 4 + (v == null ? 0 : v.length);
      }
    }
    ByteBuffer b = ByteBuffer.allocate(size).put((byte) kind.ordinal()).putLong(index);
    if (kind == Kind.EXPECTATIONS) {
      b.putInt(actual.size());
      for (byte[] v : actual) {
        if (v == null) {
          b.putInt(ABSENT);
        } else {
          b.putInt(v.length).put(v);
        }
      }
    }
    return b.put(d).array();
  }

  static ApplyOutcome decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    Kind kind = Kind.values()[b.get()];
    long index = b.getLong();
    List<byte[]> actual = new ArrayList<>();
    if (kind == Kind.EXPECTATIONS) {
      int n = b.getInt();
      for (int i = 0; i < n; i++) {
        int len = b.getInt();
        if (len == ABSENT) {
          actual.add(null);
        } else {
          byte[] v = new byte[len];
          b.get(v);
          actual.add(v);
        }
      }
    }
    byte[] d = new byte[b.remaining()];
    b.get(d);
    return new ApplyOutcome(kind, index, new String(d, StandardCharsets.UTF_8), actual);
  }
}
