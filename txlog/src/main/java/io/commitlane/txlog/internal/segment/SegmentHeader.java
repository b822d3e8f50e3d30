package io.commitlane.txlog.internal.segment;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The 32-byte header at the start of every segment file (big-endian): magic "CLTG", format
 * version, segment number, creation time millis, the end offset of the previous segment, CRC-32C
 * of bytes 0..27. The creation time drives age-based rotation across restarts. The previous
 * segment's end chains the segments: recovery checks that segment {@code n - 1} exists and ends
 * exactly there, so a deleted or truncated segment is found instead of silently skipped.
 *
 * <p>Version 1 headers (bytes 24..27 reserved, zero) read as {@link #UNKNOWN_PREDECESSOR}.
 */
public final class SegmentHeader {
  public static final int BYTES = 32;
  static final int MAGIC = 0x434C5447;
  static final int VERSION = 2;
  /** The segment follows no segment it must be chained to: the log's first, or one started past a lost tail. */
  public static final int NO_PREDECESSOR = -1;
  /** Where the previous segment ended is not recorded (a version 1 header, or a switch cut short by a crash). */
  public static final int UNKNOWN_PREDECESSOR = -2;

  public final long segmentNumber;
  public final long createdMillis;
  /** The byte offset at which segment {@code segmentNumber - 1} ended, or one of the constants above. */
  public final int previousEnd;

  public SegmentHeader(long segmentNumber, long createdMillis, int previousEnd) {
    this.segmentNumber = segmentNumber;
    this.createdMillis = createdMillis;
    this.previousEnd = previousEnd;
  }

  public ByteBuffer encode() {
    ByteBuffer buf = ByteBuffer.allocate(BYTES);
    buf.putInt(0, MAGIC).putInt(4, VERSION).putLong(8, segmentNumber).putLong(16, createdMillis)
        .putInt(24, previousEnd);
    buf.putInt(28, crc(buf));
    return buf;
  }

  /** The header in {@code buf} (at index 0), or {@code null} if it is short or fails its checks. */
  public static SegmentHeader decode(ByteBuffer buf, int limit) {
    if (limit < BYTES || buf.getInt(0) != MAGIC || crc(buf) != buf.getInt(28)) {
      return null;
    }
    int version = buf.getInt(4);
    if (version != 1 && version != VERSION) {
      return null;
    }
    int previousEnd = version == 1 ? UNKNOWN_PREDECESSOR : buf.getInt(24);
    return new SegmentHeader(buf.getLong(8), buf.getLong(16), previousEnd);
  }

  private static int crc(ByteBuffer buf) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().position(0).limit(28));
    return (int) crc.getValue();
  }
}
