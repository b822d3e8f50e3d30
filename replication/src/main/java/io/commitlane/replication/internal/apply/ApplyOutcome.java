package io.commitlane.replication.internal.apply;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What applying one replicated commit did, as the leader replies it to the committer and as a
 * request id's record keeps it.
 *
 * @param index the log index of the entry
 * @param slot the commit's place in its entry (0 for an entry of one commit): commits of one entry
 *     are validated and applied in slot order
 * @param detail for a conflict the store and key, for a refusal the reason; empty otherwise
 * @param actual for {@link Kind#EXPECTATIONS}, what each expected key held at the entry's place in
 *     the log (null: absent), in the order of the commit's expectations; empty otherwise
 */
public record ApplyOutcome(Kind kind, long index, int slot, String detail, List<byte[]> actual) {

  /** New kinds go at the end: replies carry the ordinal. */
  public enum Kind {
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

  public ApplyOutcome {
    actual = actual == null ? List.of() : java.util.Collections.unmodifiableList(new ArrayList<>(actual));
  }

  /** Marks an encoded outcome that carries a slot (outcomes without one are in slot 0). */
  private static final int WITH_SLOT = 0x80;

  public ApplyOutcome(Kind kind, long index, String detail) {
    this(kind, index, 0, detail, List.of());
  }

  public ApplyOutcome(Kind kind, long index, int slot, String detail) {
    this(kind, index, slot, detail, List.of());
  }

  public ApplyOutcome(Kind kind, long index, String detail, List<byte[]> actual) {
    this(kind, index, 0, detail, actual);
  }

  /** This outcome in {@code slot} of its entry. */
  public ApplyOutcome inSlot(int slot) {
    return new ApplyOutcome(kind, index, slot, detail, actual);
  }

  public static ApplyOutcome committed(long index, int slot) {
    return new ApplyOutcome(Kind.COMMITTED, index, slot, "");
  }

  public static ApplyOutcome committed(long index) {
    return committed(index, 0);
  }

  public byte[] encode() {
    byte[] d = detail.getBytes(StandardCharsets.UTF_8);
    int size = 1 + 8 + (slot == 0 ? 0 : 4) + d.length;
    if (kind == Kind.EXPECTATIONS) {
      size += 4;
      for (byte[] v : actual) {
        size += 4 + (v == null ? 0 : v.length);
      }
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    if (slot == 0) {
      b.put((byte) kind.ordinal()).putLong(index);
    } else {
      b.put((byte) (kind.ordinal() | WITH_SLOT)).putLong(index).putInt(slot);
    }
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

  public static ApplyOutcome decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int k = b.get() & 0xFF;
    Kind kind = Kind.values()[k & ~WITH_SLOT];
    long index = b.getLong();
    int slot = (k & WITH_SLOT) != 0 ? b.getInt() : 0;
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
    return new ApplyOutcome(kind, index, slot, new String(d, StandardCharsets.UTF_8), actual);
  }
}
