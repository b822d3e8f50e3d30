package io.commitlane.replication.internal.entry;

import io.commitlane.replication.LogPositions;
import io.commitlane.replication.MalformedEntryException;
import io.commitlane.replication.PositionStamp;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One transaction as the replicated log carries it: the log index its reads saw, what it read
 * (keys and ranges), what it writes and the records it appends to transaction logs. Every replica
 * validates and applies it the same way, so the outcome is a function of the log alone.
 *
 * @param snapshotIndex the last log index applied in the snapshot the transaction read
 * @param requestId the caller's id for an exactly-once commit, or null
 * @param proposedAtMillis the proposing node's clock; log records get their timestamps from it
 */
public record ReplicatedCommit(
    long snapshotIndex, byte[] requestId, long proposedAtMillis, List<ReadKey> readKeys, List<ReadRange> readRanges,
    List<Write> writes, List<LogAppend> logs, List<Expect> expects, List<PositionedPut> positioned) {

  /**
   * The first byte of every encoded commit; a replica refuses an entry in a format it does not
   * know. Format 1 had no timestamp and no log records; it is still read.
   */
  public static final byte FORMAT = 2;
  private static final byte FORMAT_WITHOUT_LOGS = 1;
  /**
   * Format 2 followed by the commit's expectations: written only by a commit that has some, so
   * that every other commit stays readable by replicas that know formats 1 and 2 only.
   */
  public static final byte FORMAT_WITH_EXPECTATIONS = 3;
  /**
   * Format 3 (its expectations always present, possibly none) followed by the commit's positioned
   * puts: written only by a commit that has some, so every other commit keeps its older format.
   * Not 4, which starts a {@link CommitBatch}.
   */
  public static final byte FORMAT_WITH_POSITIONS = 5;
  private static final int NULL_BYTES = -1;

  public ReplicatedCommit {
    readKeys = List.copyOf(readKeys);
    readRanges = List.copyOf(readRanges);
    writes = List.copyOf(writes);
    logs = List.copyOf(logs);
    expects = List.copyOf(expects);
    positioned = List.copyOf(positioned);
  }

  /** A commit without expectations. */
  public ReplicatedCommit(long snapshotIndex, byte[] requestId, long proposedAtMillis, List<ReadKey> readKeys,
      List<ReadRange> readRanges, List<Write> writes, List<LogAppend> logs) {
    this(snapshotIndex, requestId, proposedAtMillis, readKeys, readRanges, writes, logs, List.of());
  }

  /** A commit without positioned puts. */
  public ReplicatedCommit(long snapshotIndex, byte[] requestId, long proposedAtMillis, List<ReadKey> readKeys,
      List<ReadRange> readRanges, List<Write> writes, List<LogAppend> logs, List<Expect> expects) {
    this(snapshotIndex, requestId, proposedAtMillis, readKeys, readRanges, writes, logs, expects, List.of());
  }

  /**
   * A put whose key and value hold commit positions that the applier writes in ({@link
   * LogPositions}): {@code stamps} say where (8 bytes, big-endian) and which of the commit's
   * positions (its ordinal) each place gets.
   */
  public record PositionedPut(String store, byte[] key, byte[] value, List<PositionStamp> stamps) {
    public PositionedPut {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      stamps = List.copyOf(stamps);
    }

    /** The put with every stamp's position written in, the commit's first position being {@code first}. */
    public Write resolve(long first) {
      byte[] k = key.clone();
      byte[] v = value.clone();
      for (PositionStamp s : stamps) {
        java.nio.ByteBuffer.wrap(s.inValue() ? v : k, s.offset(), 8).putLong(first + s.ordinal());
      }
      return new Write(store, k, v);
    }

    /** How many positions the put uses: its largest ordinal plus one (0 without stamps). */
    public int positions() {
      int n = 0;
      for (PositionStamp s : stamps) {
        n = Math.max(n, s.ordinal() + 1);
      }
      return n;
    }
  }

  /** How many positions the commit uses: its largest ordinal plus one. */
  public int positions() {
    int n = 0;
    for (PositionedPut p : positioned) {
      n = Math.max(n, p.positions());
    }
    return n;
  }

  /**
   * The commit applies only if {@code key} in {@code store} holds {@code value} (absent, for a
   * null value) at the commit's place in the log, before its own writes.
   */
  public record Expect(String store, byte[] key, byte[] value) {
    public Expect {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(key, "key");
    }
  }

  /** A key the transaction read: it conflicts with a later commit that wrote it. */
  public record ReadKey(String store, byte[] key) {
    public ReadKey {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(key, "key");
    }
  }

  /** Keys in [from, to) that the transaction scanned; null bounds are open. */
  public record ReadRange(String store, byte[] from, byte[] to) {
    public ReadRange {
      Objects.requireNonNull(store, "store");
    }
  }

  /** A put ({@code value} non-null) or a delete (null). */
  public record Write(String store, byte[] key, byte[] value) {
    public Write {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(key, "key");
    }
  }

  /** The record a commit appends to the transaction log {@code log}: its entries, in order. */
  public record LogAppend(String log, List<byte[]> entries) {
    public LogAppend {
      Objects.requireNonNull(log, "log");
      entries = List.copyOf(entries);
    }
  }

  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 32 * writes.size());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(!positioned.isEmpty() ? FORMAT_WITH_POSITIONS : expects.isEmpty() ? FORMAT : FORMAT_WITH_EXPECTATIONS);
      out.writeLong(snapshotIndex);
      out.writeLong(proposedAtMillis);
      writeBytes(out, requestId);
      out.writeInt(readKeys.size());
      for (ReadKey r : readKeys) {
        out.writeUTF(r.store());
        writeBytes(out, r.key());
      }
      out.writeInt(readRanges.size());
      for (ReadRange r : readRanges) {
        out.writeUTF(r.store());
        writeBytes(out, r.from());
        writeBytes(out, r.to());
      }
      out.writeInt(writes.size());
      for (Write w : writes) {
        out.writeUTF(w.store());
        writeBytes(out, w.key());
        writeBytes(out, w.value());
      }
      out.writeInt(logs.size());
      for (LogAppend l : logs) {
        out.writeUTF(l.log());
        out.writeInt(l.entries().size());
        for (byte[] e : l.entries()) {
          writeBytes(out, e);
        }
      }
      if (!expects.isEmpty() || !positioned.isEmpty()) {
        out.writeInt(expects.size());
        for (Expect e : expects) {
          out.writeUTF(e.store());
          writeBytes(out, e.key());
          writeBytes(out, e.value());
        }
      }
      if (!positioned.isEmpty()) {
        out.writeInt(positioned.size());
        for (PositionedPut p : positioned) {
          out.writeUTF(p.store());
          writeBytes(out, p.key());
          writeBytes(out, p.value());
          out.writeInt(p.stamps().size());
          for (PositionStamp st : p.stamps()) {
            out.writeBoolean(st.inValue());
            out.writeInt(st.offset());
            out.writeInt(st.ordinal());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * Decodes an entry. Every replica decodes the same bytes, so a malformed entry is refused the
   * same way everywhere.
   *
   * @throws MalformedEntryException if the bytes are not a commit in a known format
   */
  public static ReplicatedCommit decode(byte[] entry) {
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(entry))) {
      byte format = in.readByte();
      if (format != FORMAT && format != FORMAT_WITHOUT_LOGS && format != FORMAT_WITH_EXPECTATIONS
          && format != FORMAT_WITH_POSITIONS) {
        throw new MalformedEntryException("entry format " + format + " is not known to this replica (it reads "
            + FORMAT_WITHOUT_LOGS + ", " + FORMAT + ", " + FORMAT_WITH_EXPECTATIONS + " and " + FORMAT_WITH_POSITIONS + ")");
      }
      boolean withLogs = format != FORMAT_WITHOUT_LOGS;
      long snapshot = in.readLong();
      long proposedAt = withLogs ? in.readLong() : 0;
      byte[] requestId = readBytes(in, entry.length);
      int nKeys = count(in, entry.length);
      List<ReadKey> keys = new ArrayList<>(nKeys);
      for (int i = 0; i < nKeys; i++) {
        keys.add(new ReadKey(in.readUTF(), required(readBytes(in, entry.length), "read key")));
      }
      int nRanges = count(in, entry.length);
      List<ReadRange> ranges = new ArrayList<>(nRanges);
      for (int i = 0; i < nRanges; i++) {
        ranges.add(new ReadRange(in.readUTF(), readBytes(in, entry.length), readBytes(in, entry.length)));
      }
      int nWrites = count(in, entry.length);
      List<Write> writes = new ArrayList<>(nWrites);
      for (int i = 0; i < nWrites; i++) {
        writes.add(new Write(in.readUTF(), required(readBytes(in, entry.length), "written key"), readBytes(in, entry.length)));
      }
      List<LogAppend> logs = new ArrayList<>();
      if (withLogs) {
        int nLogs = count(in, entry.length);
        for (int i = 0; i < nLogs; i++) {
          String log = in.readUTF();
          int nEntries = count(in, entry.length);
          List<byte[]> entries = new ArrayList<>(nEntries);
          for (int j = 0; j < nEntries; j++) {
            entries.add(required(readBytes(in, entry.length), "log entry"));
          }
          logs.add(new LogAppend(log, entries));
        }
      }
      List<Expect> expects = new ArrayList<>();
      if (format == FORMAT_WITH_EXPECTATIONS || format == FORMAT_WITH_POSITIONS) {
        int nExpects = count(in, entry.length);
        for (int i = 0; i < nExpects; i++) {
          expects.add(new Expect(in.readUTF(), required(readBytes(in, entry.length), "expected key"), readBytes(in, entry.length)));
        }
      }
      List<PositionedPut> positioned = new ArrayList<>();
      if (format == FORMAT_WITH_POSITIONS) {
        int nPuts = count(in, entry.length);
        if (nPuts == 0) {
          throw new MalformedEntryException("an entry in format " + FORMAT_WITH_POSITIONS + " has no positioned put");
        }
        for (int i = 0; i < nPuts; i++) {
          String store = in.readUTF();
          byte[] key = required(readBytes(in, entry.length), "positioned key");
          byte[] value = required(readBytes(in, entry.length), "positioned value");
          int nStamps = count(in, entry.length);
          List<PositionStamp> stamps = new ArrayList<>(nStamps);
          for (int j = 0; j < nStamps; j++) {
            boolean inValue = in.readBoolean();
            int offset = in.readInt();
            int ordinal = in.readInt();
            int length = inValue ? value.length : key.length;
            if (offset < 0 || offset > length - 8) {
              throw new MalformedEntryException("a position stamp at byte " + offset + " does not fit the " + length
                  + "-byte " + (inValue ? "value" : "key") + " it stamps");
            }
            if (ordinal < 0 || ordinal >= LogPositions.PER_ENTRY) {
              throw new MalformedEntryException("a position stamp's ordinal " + ordinal + " is outside 0.."
                  + (LogPositions.PER_ENTRY - 1));
            }
            stamps.add(new PositionStamp(inValue, offset, ordinal));
          }
          positioned.add(new PositionedPut(store, key, value, stamps));
        }
      }
      if (in.available() > 0) {
        throw new MalformedEntryException(in.available() + " bytes follow the last log record");
      }
      return new ReplicatedCommit(snapshot, requestId, proposedAt, keys, ranges, writes, logs, expects, positioned);
    } catch (EOFException e) {
      throw new MalformedEntryException("entry ends early (" + entry.length + " bytes)");
    } catch (IOException e) {
      throw new MalformedEntryException("entry does not decode: " + e.getMessage());
    }
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    if (b == null) {
      out.writeInt(NULL_BYTES);
    } else {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  private static byte[] readBytes(DataInputStream in, int entryLength) throws IOException {
    int n = in.readInt();
    if (n == NULL_BYTES) {
      return null;
    }
    if (n < 0 || n > entryLength) {
      throw new MalformedEntryException("a length of " + n + " bytes in an entry of " + entryLength);
    }
    return in.readNBytes(n);
  }

  private static int count(DataInputStream in, int entryLength) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > entryLength) {
      throw new MalformedEntryException("a count of " + n + " in an entry of " + entryLength + " bytes");
    }
    return n;
  }

  private static byte[] required(byte[] b, String what) {
    if (b == null) {
      throw new MalformedEntryException("a " + what + " is missing");
    }
    return b;
  }
}
