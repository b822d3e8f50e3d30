package io.commitlane.actors.internal.log;

import io.commitlane.actors.internal.protocol.RequestLedger;
import io.commitlane.storage.Batch;
import io.commitlane.storage.Database;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.Store;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Encodes a commit's writes into its log record so that replay can apply them after a crash:
 * {@code -2:int (format 2), count:int}, then per write {@code store:short-length UTF-8,
 * generation:int, key:int-length bytes, value:int-length bytes (-1 for a removal)}. Format 3
 * ({@code -3}) is format 2 followed by the commit's request record ({@code length:int, bytes}, see
 * {@link RequestLedger#logged}), so replay restores the request id with the data. Format 1
 * (records written before stores could be dropped) starts with the count and has no generation.
 * Replaying a record re-applies final values, so replaying the same records twice gives the same
 * data.
 */
public final class WriteSetCodec {
  private static final int FORMAT_2 = -2;
  private static final int FORMAT_3 = -3;

  private WriteSetCodec() {}

  /**
   * A record's writes as a batch, how many writes named a store that no longer exists, and the
   * commit's request record (null when it had no request id).
   */
  public record Decoded(Batch batch, int skipped, ByteBuffer request) {}

  public static ByteBuffer encode(PendingCommit c) {
    return encode(c, null);
  }

  /** The commit's writes, and {@code request} (may be null) after them. */
  public static ByteBuffer encode(PendingCommit c, byte[] request) {
    List<byte[]> names = new ArrayList<>();
    int[] size = {8};
    c.forEachWrite((store, key, value) -> {
      byte[] name = store.name().getBytes(StandardCharsets.UTF_8);
      names.add(name);
      size[0] += 2 + name.length + 4 + 4 + key.length + 4 + (value == null ? 0 : value.length);
    });
    ByteBuffer out = ByteBuffer.allocate(size[0] + (request == null ? 0 : 4 + request.length));
    out.putInt(request == null ? FORMAT_2 : FORMAT_3).putInt(c.writeCount());
    int[] i = {0};
    c.forEachWrite((store, key, value) -> {
      byte[] name = names.get(i[0]++);
      out.putShort((short) name.length).put(name);
      out.putInt(store.generation());
      out.putInt(key.length).put(key);
      if (value == null) {
        out.putInt(-1);
      } else {
        out.putInt(value.length).put(value);
      }
    });
    if (request != null) {
      out.putInt(request.length).put(request);
    }
    return out.flip();
  }

  /**
   * Decode into a batch against {@code db}. A write whose store was dropped before the crash is
   * left out and counted: its store is gone (or the name now belongs to a newer generation, which
   * the write must not touch). Never creates a store: a dropped store must stay dropped.
   */
  public static Decoded decode(ByteBuffer in, Database db) {
    ByteBuffer b = in.duplicate();
    int first = b.getInt();
    boolean withRequest = first == FORMAT_3;
    boolean withGeneration = first == FORMAT_2 || withRequest;
    int count = withGeneration ? b.getInt() : first;
    Batch batch = Batch.create();
    int skipped = 0;
    for (int i = 0; i < count; i++) {
      byte[] name = new byte[b.getShort()];
      b.get(name);
      int generation = withGeneration ? b.getInt() : -1;
      byte[] key = new byte[b.getInt()];
      b.get(key);
      int len = b.getInt();
      byte[] value = null;
      if (len >= 0) {
        value = new byte[len];
        b.get(value);
      }
      Optional<Store> store = db.findStore(new String(name, StandardCharsets.UTF_8));
      if (store.isEmpty() || (withGeneration && store.get().generation() != generation)) {
        skipped++;
      } else if (value == null) {
        batch.remove(store.get(), key);
      } else {
        batch.put(store.get(), key, value);
      }
    }
    ByteBuffer request = null;
    if (withRequest) {
      int length = b.getInt();
      request = b.slice(b.position(), length);
    }
    return new Decoded(batch, skipped, request);
  }
}
