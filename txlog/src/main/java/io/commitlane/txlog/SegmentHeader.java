package io.commitlane.txlog;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The 32-byte header at the start of every segment file (big-endian): magic "CLTG", format
 * version, segment number, creation time millis, 4 reserved bytes, CRC-32C of bytes 0..27. The
 * creation time drives age-based rotation across restarts.
 */
final class SegmentHeader {
  static final int BYTES = 32;
  static final int MAGIC = 0x434C5447;
  static final int VERSION = 1;

  final long segmentNumber;
  final long createdMillis;

  SegmentHeader(long segmentNumber, long createdMillis) {
    this.segmentNumber = segmentNumber;
    this.createdMillis = createdMillis;
  }

  ByteBuffer encode() {
    ByteBuffer buf = ByteBuffer.allocate(BYTES);
    buf.putInt(0, MAGIC).putInt(4, VERSION).putLong(8, segmentNumber).putLong(16, createdMillis);
    buf.putInt(28, crc(buf));
    return buf;
  }

  /** The header in {@code buf} (at index 0), or {@code null} if it is short or fails its checks. */
  static SegmentHeader decode(ByteBuffer buf, int limit) {
    if (limit < BYTES || buf.getInt(0) != MAGIC || buf.getInt(4) != VERSION
        || crc(buf) != buf.getInt(28)) {
      return null;
    }
    return new SegmentHeader(buf.getLong(8), buf.getLong(16));
  }

  private static int crc(ByteBuffer buf) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().position(0).limit(28));
    return (int) crc.getValue();
  }
}
