package io.commitlane.storage.internal.commit;

import java.util.List;

/**
 * Buffered writes in RocksDB's serialized {@code WriteBatch} format, so that a commit of several
 * keys, or a merged group of commits, reaches RocksDB as one byte array: {@code new
 * WriteBatch(byte[])} is one JNI call, where building the batch costs one call per key.
 *
 * <p>The format (RocksDB {@code db/write_batch.cc}): a 12-byte header, the sequence number
 * (fixed64, left 0: the write assigns it) and the record count (fixed32), both little-endian; then
 * one record per write, in order. A record is a type byte, the column family id as a varint32 for
 * any family but the default (id 0), then the key and, for a put, the value, each as a varint32
 * length followed by the bytes. A test compares the bytes with what rocksdbjni's own {@code
 * WriteBatch} builds for the same writes.
 */
public final class WriteBatchFormat {
  static final int HEADER = 12;
  static final byte DELETION = 0x0;
  static final byte VALUE = 0x1;
  static final byte COLUMN_FAMILY_DELETION = 0x4;
  static final byte COLUMN_FAMILY_VALUE = 0x5;

  private WriteBatchFormat() {}

  /** One buffer's writes as a serialized batch. */
  public static byte[] of(WriteBuffer w) {
    return of(List.of(w));
  }

  /** Every buffer's writes, in list order, as one serialized batch. */
  public static byte[] of(List<WriteBuffer> buffers) {
    long size = HEADER;
    int count = 0;
    for (WriteBuffer w : buffers) {
      for (int i = 0; i < w.size(); i++) {
        size += recordSize(w.store(i).generation(), w.key(i), w.value(i));
      }
      count += w.size();
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a write batch of " + size + " bytes is larger than a Java array can hold");
    }
    byte[] out = new byte[(int) size];
    int at = 8; // the sequence number stays 0
    at = fixed32(out, at, count);
    for (WriteBuffer w : buffers) {
      for (int i = 0; i < w.size(); i++) {
        at = record(out, at, w.store(i).generation(), w.key(i), w.value(i));
      }
    }
    return out;
  }

  private static long recordSize(int columnFamily, byte[] key, byte[] value) {
    long n = 1 + (columnFamily == 0 ? 0 : varint32Size(columnFamily)) + varint32Size(key.length) + key.length;
    if (value != null) {
      n += varint32Size(value.length) + value.length;
    }
    return n;
  }

  private static int record(byte[] out, int at, int columnFamily, byte[] key, byte[] value) {
    boolean put = value != null;
    if (columnFamily == 0) {
      out[at++] = put ? VALUE : DELETION;
    } else {
      out[at++] = put ? COLUMN_FAMILY_VALUE : COLUMN_FAMILY_DELETION;
      at = varint32(out, at, columnFamily);
    }
    at = bytes(out, at, key);
    if (put) {
      at = bytes(out, at, value);
    }
    return at;
  }

  private static int bytes(byte[] out, int at, byte[] b) {
    at = varint32(out, at, b.length);
    System.arraycopy(b, 0, out, at, b.length);
    return at + b.length;
  }

  private static int fixed32(byte[] out, int at, int v) {
    out[at] = (byte) v;
    out[at + 1] = (byte) (v >>> 8);
    out[at + 2] = (byte) (v >>> 16);
    out[at + 3] = (byte) (v >>> 24);
    return at + 4;
  }

  public static int varint32Size(int v) {
    int n = 1;
    while ((v & ~0x7F) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static int varint32(byte[] out, int at, int v) {
    while ((v & ~0x7F) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }
}
