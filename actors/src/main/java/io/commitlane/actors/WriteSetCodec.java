package io.commitlane.actors;

import io.commitlane.storage.Batch;
import io.commitlane.storage.Database;
import io.commitlane.storage.PendingCommit;
import io.commitlane.storage.Store;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes a commit's writes into its log record so that replay can apply them after a crash:
 * {@code count:int}, then per write {@code store:short-length UTF-8, key:int-length bytes,
 * value:int-length bytes (-1 for a removal)}. Replaying a record re-applies final values, so
 * replaying the same records twice gives the same data.
 */
final class WriteSetCodec {
  private WriteSetCodec() {}

  static ByteBuffer encode(PendingCommit c) {
    List<byte[]> names = new ArrayList<>();
    int[] size = {4};
    c.forEachWrite((store, key, value) -> {
      byte[] name = store.name().getBytes(StandardCharsets.UTF_8);
      names.add(name);
      size[0] += 2 + name.length + 4 + key.length + 4 + (value == null ? 0 : value.length);
    });
    ByteBuffer out = ByteBuffer.allocate(size[0]);
    out.putInt(c.writeCount());
    int[] i = {0};
    c.forEachWrite((store, key, value) -> {
      byte[] name = names.get(i[0]++);
      out.putShort((short) name.length).put(name);
      out.putInt(key.length).put(key);
      if (value == null) {
        out.putInt(-1);
      } else {
        out.putInt(value.length).put(value);
      }
    });
    return out.flip();
  }

  /** Decode into a batch against {@code db}; stores missing there are created. */
  static Batch decode(ByteBuffer in, Database db) {
    ByteBuffer b = in.duplicate();
    int count = b.getInt();
    Batch batch = Batch.create();
    for (int i = 0; i < count; i++) {
      byte[] name = new byte[b.getShort()];
      b.get(name);
      byte[] key = new byte[b.getInt()];
      b.get(key);
      int len = b.getInt();
      Store store = db.store(new String(name, StandardCharsets.UTF_8));
      if (len < 0) {
        batch.remove(store, key);
      } else {
        byte[] value = new byte[len];
        b.get(value);
        batch.put(store, key, value);
      }
    }
    return batch;
  }
}
