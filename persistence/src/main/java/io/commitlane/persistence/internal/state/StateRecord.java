package io.commitlane.persistence.internal.state;

import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.plugin.PayloadCodec.Serialized;
import java.nio.ByteBuffer;

/**
 * One durable state object ({@code D} key): its revision, the commit position of its newest change (-1 when it was
 * written without one: untagged, never tagged), when it was written, its tag ("" for none) and its value; a deletion
 * with a revision keeps the record with no value (a tombstone), so the revision goes on and the change is seen by
 * queries. {@code stale} is the change index key of the object's previous change (empty: none), which stays in the
 * index until the next change of the object: while this change is not settled, a query meets that entry and waits
 * for it instead of passing the object by (a crash may still take this change back).
 */
public record StateRecord(long revision, long position, long timestamp, String tag, Serialized value, byte[] stale) {
  private static final byte FORMAT_1 = 1;
  private static final byte FORMAT = 2;
  static final byte[] NONE = new byte[0];
  /** Where {@link #encode()} puts the position: a write's store fills it in with the commit's position. */
  static final int POSITION_OFFSET = 1 + 8;

  boolean deleted() {
    return value == null;
  }

  /** The key of this change's own change index entry, or {@link #NONE}. */
  byte[] entry() {
    return position >= 0 && !tag.isEmpty() ? Keys.change(Keys.utf8("tag", tag), position) : NONE;
  }

  /** Whether this object has entries in the change index (its own or a stale one). */
  boolean indexed() {
    return entry().length > 0 || stale.length > 0;
  }

  byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(1 + 24 + PayloadCodec.stringSize(tag) + 1 + (value == null ? 0 : value.size())
        + 4 + stale.length);
    b.put(FORMAT).putLong(revision).putLong(position).putLong(timestamp);
    PayloadCodec.putString(b, tag);
    b.put((byte) (value == null ? 0 : 1));
    if (value != null) {
      PayloadCodec.putSerialized(b, value);
    }
    b.putInt(stale.length).put(stale);
    return java.util.Arrays.copyOf(b.array(), b.position());
  }

  static StateRecord decode(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte format = b.get();
    if (format != FORMAT && format != FORMAT_1) {
      throw new IllegalStateException("a durable state is stored in format " + format + ", which this version cannot read");
    }
    long revision = b.getLong();
    long position = b.getLong();
    long timestamp = b.getLong();
    String tag = PayloadCodec.getString(b);
    Serialized value = b.get() == 1 ? PayloadCodec.getSerialized(b) : null;
    byte[] stale = NONE;
    if (format == FORMAT) {
      stale = new byte[b.getInt()];
      b.get(stale);
    }
    return new StateRecord(revision, position, timestamp, tag, value, stale);
  }
}
