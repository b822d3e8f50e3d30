package io.commitlane.replication;

import io.commitlane.storage.Database;
import io.commitlane.storage.Store;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A read that the leader answers after its read index (a linearizable read): the bytes of the
 * question and of the answer. A key read is {@code 'g', store length, store, key}; the answer is
 * {@code 0} for absent or {@code 1} followed by the value.
 */
final class ReadQuery {
  private static final byte GET = 'g';

  private ReadQuery() {}

  static byte[] get(String store, byte[] key) {
    byte[] name = store.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + 2 + name.length + key.length).put(GET).putShort((short) name.length).put(name).put(key).array();
  }

  static byte[] answer(Database db, byte[] query) {
    ByteBuffer b = ByteBuffer.wrap(query);
    if (query.length < 3 || b.get() != GET) {
      throw new MalformedEntryException("not a read this replica knows (" + query.length + " bytes)");
    }
    int nameLength = Short.toUnsignedInt(b.getShort());
    if (nameLength > b.remaining()) {
      throw new MalformedEntryException("a store name of " + nameLength + " bytes in a read of " + query.length);
    }
    byte[] name = new byte[nameLength];
    b.get(name);
    byte[] key = Arrays.copyOfRange(query, b.position(), query.length);
    Store store = db.findStore(new String(name, StandardCharsets.UTF_8)).orElse(null);
    byte[] value = store == null ? null : db.get(store, key);
    return value(value);
  }

  static byte[] value(byte[] value) {
    if (value == null) {
      return new byte[] {0};
    }
    byte[] out = new byte[1 + value.length];
    out[0] = 1;
    System.arraycopy(value, 0, out, 1, value.length);
    return out;
  }

  static byte[] readValue(byte[] answer) {
    return answer.length == 0 || answer[0] == 0 ? null : Arrays.copyOfRange(answer, 1, answer.length);
  }
}
