package io.commitlane.txlog;

/**
 * Log positions are plain {@code long}s, ordered like the log: {@code (segment << 32) | offset},
 * where offset is the byte offset of a frame in its segment file. A position names a frame; the
 * committed watermark and the flushed position name the first byte not covered.
 */
public final class LogPosition {

  /** The smallest position: before every record. */
  public static final long START = 0L;

  private static final long OFFSET_MASK = 0xFFFF_FFFFL;

  private LogPosition() {}

  /** The position of byte {@code offset} in segment {@code segment}. */
  public static long of(long segment, long offset) {
    if (segment < 0 || segment > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("segment number out of range [0, 2^31): " + segment);
    }
    if (offset < 0 || offset > OFFSET_MASK) {
      throw new IllegalArgumentException("segment offset out of range [0, 2^32): " + offset);
    }
    return (segment << 32) | offset;
  }

  /** The segment number of {@code position}. */
  public static long segment(long position) {
    return position >>> 32;
  }

  /** The byte offset of {@code position} within its segment. */
  public static long offset(long position) {
    return position & OFFSET_MASK;
  }

  /** {@code "segment:offset"}, for logs and messages. */
  public static String toString(long position) {
    return segment(position) + ":" + offset(position);
  }
}
