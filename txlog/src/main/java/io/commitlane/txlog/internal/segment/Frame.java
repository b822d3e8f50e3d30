package io.commitlane.txlog.internal.segment;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The frame layout and its checks. A frame is a 28-byte header and a payload (big-endian):
 *
 * <pre>
 *  0  int   sync word 0xC0A1F7E5   lets recovery find the next frame after a bad one
 *  4  int   payload length
 *  8  int   flags: bits 0-7 frame type (1 record, 2 abort marker), bits 16-31 caller flags
 * 12  long  timestamp (caller's millis)
 * 20  int   CRC-32C of the payload
 * 24  int   CRC-32C of bytes 0..23 (so it also covers the payload CRC)
 * 28  payload
 * </pre>
 *
 * <p>Why two checksums: the header CRC is checked before the length is trusted, so a corrupted
 * length is detected instead of swallowing (or running past) the frames behind it; recovery then
 * searches byte by byte for the next sync word whose header checks. When only the payload is bad,
 * the header's length is trustworthy and the next frame is found without searching. One CRC over
 * the whole frame could do neither.
 */
public final class Frame {
  public static final int SYNC = 0xC0A1F7E5;
  public static final int HEADER_BYTES = 28;

  public static final int TYPE_RECORD = 1;
  public static final int TYPE_ABORT = 2;
  static final int TYPE_MASK = 0xFF;
  public static final int MAX_USER_FLAGS = 0xFFFF;

  /** {@link #probe} results other than a valid frame's length. */
  public static final int INCOMPLETE = -1;
  public static final int BAD_HEADER = -2;
  static final int BAD_PAYLOAD = -3;

  private static final int LENGTH = 4;
  private static final int FLAGS = 8;
  private static final int TIMESTAMP = 12;
  private static final int PAYLOAD_CRC = 20;
  private static final int HEADER_CRC = 24;

  private Frame() {}

  static int flags(int type, int userFlags) {
    return (userFlags << 16) | type;
  }

  /** Writes a header at {@code at} for the payload already in {@code buf} right behind it. */
  static void writeHeader(ByteBuffer buf, int at, int payloadLength, int flags, long timestamp,
      CRC32C crc) {
    buf.putInt(at, SYNC);
    buf.putInt(at + LENGTH, payloadLength);
    buf.putInt(at + FLAGS, flags);
    buf.putLong(at + TIMESTAMP, timestamp);
    buf.putInt(at + PAYLOAD_CRC, checksum(buf, at + HEADER_BYTES, payloadLength, crc));
    buf.putInt(at + HEADER_CRC, checksum(buf, at, HEADER_CRC, crc));
  }

  /**
   * Replaces the timestamp of the frame at {@code at} and its header checksum (the payload and its
   * checksum stay as they are). Leaves {@code buf}'s position and limit alone.
   */
  static void restamp(ByteBuffer buf, int at, long timestamp, CRC32C crc) {
    buf.putLong(at + TIMESTAMP, timestamp);
    buf.putInt(at + HEADER_CRC, checksum(buf.duplicate(), at, HEADER_CRC, crc));
  }

  /**
   * Checks the frame at {@code offset}, not reading at or past {@code limit}. Moves {@code buf}'s
   * position and limit (callers pass a private view).
   *
   * @return the whole frame's length if valid, else {@link #INCOMPLETE} (the bytes end before the
   *     frame does), {@link #BAD_HEADER} or {@link #BAD_PAYLOAD}
   */
  public static int probe(ByteBuffer buf, int offset, int limit, CRC32C crc) {
    if (limit - offset < HEADER_BYTES) {
      return limit - offset >= 4 && buf.getInt(offset) != SYNC ? BAD_HEADER : INCOMPLETE;
    }
    if (buf.getInt(offset) != SYNC
        || checksum(buf, offset, HEADER_CRC, crc) != buf.getInt(offset + HEADER_CRC)) {
      return BAD_HEADER;
    }
    int length = buf.getInt(offset + LENGTH);
    if (length < 0) {
      return BAD_HEADER;
    }
    if ((long) length > limit - offset - HEADER_BYTES) {
      return INCOMPLETE;
    }
    if (checksum(buf, offset + HEADER_BYTES, length, crc) != buf.getInt(offset + PAYLOAD_CRC)) {
      return BAD_PAYLOAD;
    }
    return HEADER_BYTES + length;
  }

  /**
   * The offset of the next valid frame after a bad one at {@code badOffset}, or -1 if none starts
   * before {@code limit}. When the bad frame's header is valid its length is trusted.
   */
  public static int nextValid(ByteBuffer buf, int badOffset, int probeResult, int limit, CRC32C crc) {
    int from = probeResult == BAD_PAYLOAD ? badOffset + HEADER_BYTES + payloadLength(buf, badOffset)
        : badOffset + 1;
    for (int at = from; at <= limit - HEADER_BYTES; at++) {
      if (buf.getInt(at) == SYNC && probe(buf, at, limit, crc) > 0) {
        return at;
      }
    }
    return -1;
  }

  public static String describe(int probeResult) {
    switch (probeResult) {
      case INCOMPLETE:
        return "frame cut short";
      case BAD_HEADER:
        return "header checksum or sync word mismatch";
      case BAD_PAYLOAD:
        return "payload checksum mismatch";
      default:
        return "valid";
    }
  }

  public static int payloadLength(ByteBuffer buf, int offset) {
    return buf.getInt(offset + LENGTH);
  }

  public static int flagsAt(ByteBuffer buf, int offset) {
    return buf.getInt(offset + FLAGS);
  }

  public static int type(int flags) {
    return flags & TYPE_MASK;
  }

  public static int userFlags(int flags) {
    return flags >>> 16;
  }

  public static long timestamp(ByteBuffer buf, int offset) {
    return buf.getLong(offset + TIMESTAMP);
  }

  /** A read-only view of the payload of the (valid) frame at {@code offset}. */
  public static ByteBuffer payload(ByteBuffer buf, int offset) {
    return buf.slice(offset + HEADER_BYTES, payloadLength(buf, offset)).asReadOnlyBuffer();
  }

  private static int checksum(ByteBuffer buf, int from, int length, CRC32C crc) {
    crc.reset();
    buf.limit(from + length).position(from);
    crc.update(buf);
    buf.limit(buf.capacity());
    return (int) crc.getValue();
  }
}
