package io.commitlane.persistence.internal.journal;

import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.internal.plugin.PayloadCodec.Serialized;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * INTERNAL API. One stored event: what Pekko needs back at replay (payload with its serializer id and manifest, the
 * event adapter's manifest, writer UUID, timestamp, metadata) and what the read journal and deletion need (its tags
 * and the commit position of its tag index entries, -1 when untagged).
 */
@InternalApi
public record EventRecord(long sequenceNr, long timestamp, long position, String writerUuid, String adapterManifest,
    Serialized payload, List<String> tags, Serialized metadata) {
  private static final byte FORMAT = 1;

  /** Where {@link #encode()} puts the position: a write fills it in once its positions are claimed. */
  static final int POSITION_OFFSET = 1 + 8;

  /** Set the position of an encoded record (in place). */
  static void setPosition(byte[] encoded, long position) {
    java.nio.ByteBuffer.wrap(encoded, POSITION_OFFSET, 8).putLong(position);
  }

  byte[] encode() {
    int size = 1 + 8 + 8 + PayloadCodec.stringSize(writerUuid) + PayloadCodec.stringSize(adapterManifest)
        + payload.size() + 4 + 1 + (metadata == null ? 0 : metadata.size());
    for (String tag : tags) {
      size += PayloadCodec.stringSize(tag);
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.put(FORMAT).putLong(timestamp).putLong(position);
    PayloadCodec.putString(b, writerUuid);
    PayloadCodec.putString(b, adapterManifest);
    PayloadCodec.putSerialized(b, payload);
    b.putInt(tags.size());
    for (String tag : tags) {
      PayloadCodec.putString(b, tag);
    }
    b.put((byte) (metadata == null ? 0 : 1));
    if (metadata != null) {
      PayloadCodec.putSerialized(b, metadata);
    }
    return b.position() == size ? b.array() : java.util.Arrays.copyOf(b.array(), b.position());
  }

  public static EventRecord decode(long sequenceNr, byte[] value) {
    return decode(sequenceNr, value, null);
  }

  /** {@link #decode(long, byte[])}, its writer UUID and manifests through {@code reuse} (null: none). */
  public static EventRecord decode(long sequenceNr, byte[] value, PayloadCodec.Reuse reuse) {
    ByteBuffer b = ByteBuffer.wrap(value);
    byte format = b.get();
    if (format != FORMAT) {
      throw new IllegalStateException("event " + sequenceNr + " is stored in format " + format + ", which this version"
          + " cannot read: use the commitlane version that wrote it");
    }
    long timestamp = b.getLong();
    long position = b.getLong();
    String writer = reuse == null ? PayloadCodec.getString(b) : reuse.get(b, PayloadCodec.Reuse.WRITER);
    String adapter = reuse == null ? PayloadCodec.getString(b) : reuse.get(b, PayloadCodec.Reuse.ADAPTER);
    Serialized payload = PayloadCodec.getSerialized(b, reuse);
    int n = b.getInt();
    List<String> tags;
    if (n == 0) {
      tags = List.of();
    } else {
      List<String> read = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        read.add(PayloadCodec.getString(b));
      }
      tags = List.copyOf(read);
    }
    Serialized metadata = b.get() == 1 ? PayloadCodec.getSerialized(b) : null;
    return new EventRecord(sequenceNr, timestamp, position, writer, adapter, payload, tags, metadata);
  }
}
