package io.commitlane.txlog.internal.segment;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Walks the frames of one segment's bytes, telling valid frames from corrupt regions (a bad frame
 * followed by a valid one) and a bad tail (no valid frame after the bad bytes). Recovery and the
 * inspector share it, so both judge a file the same way the readers do.
 */
public final class SegmentScanner {

  /** What the scan found, in file order. */
  public interface Visitor {
    /** A valid frame of {@code length} bytes at {@code offset} of {@code bytes}. */
    void frame(ByteBuffer bytes, int offset, int length);

    /** Bad bytes at {@code offset}; the next valid frame is at {@code resume}. */
    void corrupt(int offset, int resume, String reason);

    /** Bad or incomplete bytes from {@code offset} to the end, with no valid frame after them. */
    void tail(int offset, String reason);
  }

  private SegmentScanner() {}

  /** Scans {@code bytes[from, limit)}; {@code bytes} must be private to the caller. */
  public static void scan(ByteBuffer bytes, int from, int limit, Visitor visitor) {
    CRC32C crc = new CRC32C();
    int offset = from;
    while (offset < limit) {
      int result = Frame.probe(bytes, offset, limit, crc);
      if (result > 0) {
        visitor.frame(bytes, offset, result);
        offset += result;
        continue;
      }
      int next = result == Frame.INCOMPLETE ? -1 : Frame.nextValid(bytes, offset, result, limit, crc);
      if (next < 0) {
        visitor.tail(offset, Frame.describe(result));
        return;
      }
      visitor.corrupt(offset, next, Frame.describe(result));
      offset = next;
    }
  }
}
