package io.commitlane.replication.internal.client;

import io.commitlane.replication.InvalidReplicaRequestException;
import io.commitlane.replication.MalformedEntryException;
import io.commitlane.replication.internal.entry.ReplicaRecords;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads that a replica answers for a client that holds no replica: a key ({@code get}) or a page
 * of a range ({@code scan}), each answered from one RocksDB snapshot together with the applied
 * position of that snapshot, so the client knows exactly which commits its read saw. Sent to the
 * leader, they wait for its read index first (linearizable).
 */
public final class ReadQuery {
  private static final byte GET = 'g';
  private static final byte SCAN = 's';
  private static final byte APPLIED = 'a';
  /** Entries per answered page: a page stays far below Ratis's message limit. */
  static final int PAGE = 1_000;

  private ReadQuery() {}

  /** An answer: the applied index of the snapshot read, and what was found there. */
  public record Answer(long appliedIndex, byte[] value, List<KeyValue> entries) {}

  /**
   * {@code store}, if a read can carry it: its name goes into the read as modified UTF-8, at most
   * 65,535 bytes (a store's own name is at most 255).
   *
   * @throws InvalidReplicaRequestException if it is null or longer
   */
  public static String checkStore(String store) {
    InvalidReplicaRequestException.required(store, "store");
    int bytes = 0;
    for (int i = 0; i < store.length() && bytes <= 65_535; i++) {
      char c = store.charAt(i);
      bytes += c >= 1 && c <= 0x7F ? 1 : c <= 0x7FF ? 2 : 3;
    }
    if (bytes > 65_535) {
      throw new InvalidReplicaRequestException("store name of " + store.length() + " characters is longer than any store's (255 UTF-8"
          + " bytes at most); name an existing store");
    }
    return store;
  }

  public static byte[] get(String store, byte[] key) {
    return encode(out -> {
      out.writeByte(GET);
      out.writeUTF(store);
      writeBytes(out, key);
    });
  }

  /** Only the applied index of the replica that answers: through the leader, a read barrier. */
  public static byte[] applied() {
    return encode(out -> {
      out.writeByte(APPLIED);
      out.writeUTF("");
    });
  }

  /** A page of {@code [from, to)} in {@code store}: at most {@code limit} entries, from {@code to} down if reverse. */
  static byte[] scan(String store, byte[] from, byte[] to, boolean reverse, int limit, boolean keysOnly) {
    return encode(out -> {
      out.writeByte(SCAN);
      out.writeUTF(store);
      writeBytes(out, from);
      writeBytes(out, to);
      out.writeBoolean(reverse);
      out.writeInt(limit);
      out.writeBoolean(keysOnly);
    });
  }

  /** Answers {@code query} from one snapshot of {@code db}. */
  public static byte[] answer(Database db, byte[] query) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(query)); Transaction snapshot = db.begin()) {
      byte op = in.readByte();
      String storeName = in.readUTF();
      long applied = appliedIn(snapshot);
      if (op == APPLIED) {
        return encode(out -> out.writeLong(applied));
      }
      Store store = db.findStore(storeName).orElse(null);
      if (op == GET) {
        byte[] key = readBytes(in);
        byte[] value = store == null ? null : snapshot.getUntracked(store, key);
        return encode(out -> {
          out.writeLong(applied);
          writeBytes(out, value);
        });
      }
      if (op == SCAN) {
        byte[] from = readBytes(in);
        byte[] to = readBytes(in);
        boolean reverse = in.readBoolean();
        int limit = Math.min(PAGE, Math.max(1, in.readInt()));
        boolean keysOnly = in.readBoolean();
        List<KeyValue> entries = new ArrayList<>();
        if (store != null) {
          KeyRange range = KeyRange.all();
          range = from == null ? range : range.from(from);
          range = to == null ? range : range.to(to);
          range = reverse ? range.reverse() : range;
          range = keysOnly ? range.keysOnly() : range;
          try (Cursor c = snapshot.scanUntracked(range.limit(limit).in(store))) {
            c.forEachRemaining(entries::add);
          }
        }
        return encode(out -> {
          out.writeLong(applied);
          out.writeInt(entries.size());
          for (KeyValue kv : entries) {
            writeBytes(out, kv.key());
            writeBytes(out, kv.value());
          }
        });
      }
      throw new MalformedEntryException("read operation '" + (char) op + "' is not known to this replica");
    } catch (IOException e) {
      throw new MalformedEntryException("a read that does not decode (" + query.length + " bytes): " + e.getMessage());
    }
  }

  private static long appliedIn(Transaction snapshot) {
    List<KeyValue> r = snapshot.internalRecordsUntracked(ReplicaRecords.APPLIED,
        Arrays.copyOf(ReplicaRecords.APPLIED, ReplicaRecords.APPLIED.length + 1));
    return r.isEmpty() ? 0 : ReplicaRecords.readApplied(r.get(0).value())[1];
  }

  public static Answer readGet(byte[] answer) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
      return new Answer(in.readLong(), readBytes(in), List.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static long readApplied(byte[] answer) {
    return ByteBuffer.wrap(answer).getLong();
  }

  static Answer readScan(byte[] answer) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
      long applied = in.readLong();
      int n = in.readInt();
      List<KeyValue> entries = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        entries.add(new KeyValue(readBytes(in), readBytes(in)));
      }
      return new Answer(applied, null, entries);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FunctionalInterface
  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] encode(Writer w) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      w.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < -1 || n > in.available()) {
      throw new IOException("a length of " + n + " with " + in.available() + " bytes left");
    }
    return n == -1 ? null : in.readNBytes(n);
  }
}
