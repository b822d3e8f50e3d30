package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogRecord;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Encodes a record's content into a frame payload and back. Layout (big-endian): transaction id
 * (long), entry count (int), each entry as length (int) + bytes, then the writes as length (int,
 * -1 for none) + bytes. Fixed-width lengths let a reader slice entries in place, without copying.
 */
public final class RecordCodec {
  private RecordCodec() {}

  public static long payloadSize(List<ByteBuffer> entries, ByteBuffer writes) {
    long size = 8 + 4 + 4;
    for (int i = 0, n = entries.size(); i < n; i++) {
      size += 4 + entries.get(i).remaining();
    }
    if (writes != null) {
      size += writes.remaining();
    }
    return size;
  }

  /** Writes the payload at {@code at}; leaves the sources' positions untouched. */
  static void encode(ByteBuffer dst, int at, long transactionId, List<ByteBuffer> entries,
      ByteBuffer writes) {
    dst.putLong(at, transactionId);
    int n = entries.size();
    dst.putInt(at + 8, n);
    int p = at + 12;
    for (int i = 0; i < n; i++) {
      ByteBuffer e = entries.get(i);
      int len = e.remaining();
      dst.putInt(p, len);
      dst.put(p + 4, e, e.position(), len);
      p += 4 + len;
    }
    if (writes == null) {
      dst.putInt(p, -1);
    } else {
      int len = writes.remaining();
      dst.putInt(p, len);
      dst.put(p + 4, writes, writes.position(), len);
    }
  }

  /**
   * Decodes a payload (a read-only slice positioned at 0) into a record whose buffers are slices
   * of it.
   *
   * @throws IllegalArgumentException if the lengths do not add up (the checksum passed, so this
   *     means a writer bug, not disk corruption)
   */
  public static LogRecord decode(long position, long timestamp, int flags, ByteBuffer payload) {
    int limit = payload.limit();
    long transactionId = payload.getLong(0);
    int n = payload.getInt(8);
    if (n < 0 || (long) n * 4 > limit) {
      throw new IllegalArgumentException("bad entry count " + n);
    }
    ByteBuffer[] entries = new ByteBuffer[n];
    int p = 12;
    for (int i = 0; i < n; i++) {
      int len = payload.getInt(p);
      if (len < 0 || len > limit - p - 4) {
        throw new IllegalArgumentException("bad entry length " + len);
      }
      entries[i] = payload.slice(p + 4, len);
      p += 4 + len;
    }
    int writesLength = payload.getInt(p);
    ByteBuffer writes = null;
    if (writesLength >= 0) {
      if (writesLength > limit - p - 4) {
        throw new IllegalArgumentException("bad writes length " + writesLength);
      }
      writes = payload.slice(p + 4, writesLength);
    }
    List<ByteBuffer> list = n == 0 ? List.of() : Collections.unmodifiableList(Arrays.asList(entries));
    return new LogRecord(position, timestamp, transactionId, flags, list, writes);
  }

  /** The aborted position an abort marker's payload names. */
  public static long abortedPosition(ByteBuffer payload) {
    return payload.getLong(0);
  }
}
