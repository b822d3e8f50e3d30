package io.commitlane.persistence.internal;

import io.commitlane.annotation.InternalApi;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
    int size() {
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

  // ---- field encoding shared by the record codecs --------------------------------------------

  static void putString(ByteBuffer b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    b.putInt(bytes.length).put(bytes);
  }

  static String getString(ByteBuffer b) {
    byte[] bytes = new byte[b.getInt()];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static int stringSize(String s) {
    return 4 + s.length() * 3;
  }

  static void putSerialized(ByteBuffer b, Serialized s) {
    b.putInt(s.serializerId());
    putString(b, s.manifest());
    b.putInt(s.bytes().length).put(s.bytes());
  }

  static Serialized getSerialized(ByteBuffer b) {
    int id = b.getInt();
    String manifest = getString(b);
    byte[] bytes = new byte[b.getInt()];
    b.get(bytes);
    return new Serialized(id, manifest, bytes);
  }
}
