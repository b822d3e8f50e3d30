package io.commitlane.persistence.internal.snapshot;

import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.plugin.PayloadCodec.Serialized;
import java.nio.ByteBuffer;

/** One stored snapshot: when it was taken, the snapshot and its metadata, each with its serializer id and manifest. */
public record SnapshotRecord(long timestamp, Serialized snapshot, Serialized metadata) {
  private static final byte FORMAT = 1;

  byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(1 + 8 + snapshot.size() + 1 + (metadata == null ? 0 : metadata.size()));
    b.put(FORMAT).putLong(timestamp);
    PayloadCodec.putSerialized(b, snapshot);
    b.put((byte) (metadata == null ? 0 : 1));
    if (metadata != null) {
      PayloadCodec.putSerialized(b, metadata);
    }
    return java.util.Arrays.copyOf(b.array(), b.position());
  }

  static SnapshotRecord decode(byte[] value) {
    ByteBuffer b = ByteBuffer.wrap(value);
    byte format = b.get();
    if (format != FORMAT) {
      throw new IllegalStateException("a snapshot is stored in format " + format + ", which this version cannot read");
    }
    long timestamp = b.getLong();
    Serialized snapshot = PayloadCodec.getSerialized(b);
    Serialized metadata = b.get() == 1 ? PayloadCodec.getSerialized(b) : null;
    return new SnapshotRecord(timestamp, snapshot, metadata);
  }

  static long timestampOf(byte[] value) {
    return ByteBuffer.wrap(value, 1, 8).getLong();
  }
}
