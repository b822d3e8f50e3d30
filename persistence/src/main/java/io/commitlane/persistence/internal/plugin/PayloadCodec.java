package io.commitlane.persistence.internal.plugin;

import io.commitlane.annotation.InternalApi;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;

/**
 * INTERNAL API. Payloads (events, snapshots, durable state, metadata) to bytes and back through Pekko Serialization:
 * the serializer id and manifest are stored with the bytes, as every Pekko plugin does, so a payload reads back with
 * the serializer that wrote it. Java serialization is used only where the actor system allows it (Pekko's default
 * is off).
 */
@InternalApi
public final class PayloadCodec {
  /** A serialized payload. */
  public record Serialized(int serializerId, String manifest, byte[] bytes) {
    public int size() {
      return 4 + 4 + manifest.length() * 3 + 4 + bytes.length;
    }
  }

  private final Serialization serialization;
  private final ExtendedActorSystem system;

  public PayloadCodec(ExtendedActorSystem system) {
    this.system = system;
    this.serialization = SerializationExtension.get(system);
  }

  /** Serialize {@code payload}; throws what its serializer throws (the journal rejects the write). */
  public Serialized serialize(Object payload) {
    // Serializers of actor references need the transport information (the local address) while they run.
    return org.apache.pekko.serialization.Serialization$.MODULE$.withTransportInformation(system, () -> {
      Serializer serializer = serialization.findSerializerFor(payload);
      String manifest = Serializers.manifestFor(serializer, payload);
      return new Serialized(serializer.identifier(), manifest, serializer.toBinary(payload));
    });
  }

  /** Deserialize; throws what the serializer throws (a replay or load fails with it). */
  public Object deserialize(Serialized s) {
    return serialization.deserialize(s.bytes(), s.serializerId(), s.manifest()).get();
  }

  /**
   * Run {@code reads} (a run of {@link #deserialize} calls) with the transport information set once: Pekko otherwise
   * sets and clears it around each payload.
   */
  public <T> T deserializing(java.util.function.Supplier<T> reads) {
    return org.apache.pekko.serialization.Serialization$.MODULE$.withTransportInformation(system, reads::get);
  }

  // ---- field encoding shared by the record codecs --------------------------------------------

  public static void putString(ByteBuffer b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    b.putInt(bytes.length).put(bytes);
  }

  public static String getString(ByteBuffer b) {
    byte[] bytes = new byte[b.getInt()];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  public static int stringSize(String s) {
    return 4 + s.length() * 3;
  }

  /**
   * Strings read from consecutive records, each field given back as the previous record's {@code String} when its
   * bytes are the same: a replay's events mostly share their writer UUID and manifests, so a replay decodes each of
   * them once instead of once per event. One per replay (not thread-safe).
   */
  public static final class Reuse {
    public static final int WRITER = 0;
    public static final int ADAPTER = 1;
    static final int MANIFEST = 2;
    private final byte[][] bytes = new byte[3][];
    private final String[] strings = new String[3];

    public String get(ByteBuffer b, int field) {
      int n = b.getInt();
      int at = b.arrayOffset() + b.position();
      byte[] last = bytes[field];
      if (last != null && Arrays.equals(last, 0, last.length, b.array(), at, at + n)) {
        b.position(b.position() + n);
        return strings[field];
      }
      byte[] read = new byte[n];
      b.get(read);
      bytes[field] = read;
      strings[field] = new String(read, StandardCharsets.UTF_8);
      return strings[field];
    }
  }

  public static void putSerialized(ByteBuffer b, Serialized s) {
    b.putInt(s.serializerId());
    putString(b, s.manifest());
    b.putInt(s.bytes().length).put(s.bytes());
  }

  public static Serialized getSerialized(ByteBuffer b) {
    return getSerialized(b, null);
  }

  /** A serialized payload, its manifest through {@code reuse} (null: none). */
  public static Serialized getSerialized(ByteBuffer b, Reuse reuse) {
    int id = b.getInt();
    String manifest = reuse == null ? getString(b) : reuse.get(b, Reuse.MANIFEST);
    byte[] bytes = new byte[b.getInt()];
    b.get(bytes);
    return new Serialized(id, manifest, bytes);
  }
}
