package io.commitlane.persistence.internal;

import io.commitlane.persistence.internal.PayloadCodec.Serialized;
import java.nio.ByteBuffer;

/**
 * One durable state object ({@code D} key): its revision, the commit position of its newest change (-1 when it has no
 * tag, so no change index entry), when it was written, its tag ("" for none) and its value; a deletion with a revision
 * keeps the record with no value (a tombstone), so the revision goes on and the change is seen by queries.
 */
record StateRecord(long revision, long position, long timestamp, String tag, Serialized value) {
  private static final byte FORMAT = 1;

  boolean deleted() {
    return value == null;
  }

  byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(1 + 24 + PayloadCodec.stringSize(tag) + 1 + (value == null ? 0 : value.size()));
    b.put(FORMAT).putLong(revision).putLong(position).putLong(timestamp);
    PayloadCodec.putString(b, tag);
    b.put((byte) (value == null ? 0 : 1));
    if (value != null) {
      PayloadCodec.putSerialized(b, value);
    }
    return java.util.Arrays.copyOf(b.array(), b.position());
  }

  static StateRecord decode(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte format = b.get();
    if (format != FORMAT) {
      throw new IllegalStateException("a durable state is stored in format " + format + ", which this version cannot read");
    }
    long revision = b.getLong();
    long position = b.getLong();
    long timestamp = b.getLong();
    String tag = PayloadCodec.getString(b);
    Serialized value = b.get() == 1 ? PayloadCodec.getSerialized(b) : null;
    return new StateRecord(revision, position, timestamp, tag, value);
  }
}
