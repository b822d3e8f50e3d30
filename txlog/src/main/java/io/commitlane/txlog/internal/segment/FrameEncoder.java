package io.commitlane.txlog.internal.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Builds frames in a per-thread direct buffer, outside the append lock, so an append allocates
 * nothing and the write hands the kernel a direct buffer (no JDK copy). Frames too large for the
 * cached buffer get a one-off buffer.
 */
public final class FrameEncoder {
  private static final int INITIAL = 64 << 10;
  private static final int MAX_CACHED = 4 << 20;
  private static final ThreadLocal<FrameEncoder> PER_THREAD = ThreadLocal.withInitial(FrameEncoder::new);

  private ByteBuffer buffer = ByteBuffer.allocateDirect(INITIAL);
  private final CRC32C crc = new CRC32C();

  public static FrameEncoder get() {
    return PER_THREAD.get();
  }

  /** A record frame, positioned at 0 with its length as limit. */
  public ByteBuffer record(long transactionId, long timestamp, int userFlags, List<ByteBuffer> entries,
      ByteBuffer writes, long payloadSize) {
    int payload = (int) payloadSize;
    ByteBuffer buf = room(Frame.HEADER_BYTES + payload);
    RecordCodec.encode(buf, Frame.HEADER_BYTES, transactionId, entries, writes);
    Frame.writeHeader(buf, 0, payload, Frame.flags(Frame.TYPE_RECORD, userFlags), timestamp, crc);
    return buf.limit(Frame.HEADER_BYTES + payload).position(0);
  }

  /**
   * A record frame in a heap buffer of its own, positioned at 0 with its length as limit: for a
   * frame that outlives this call (queued for a log's writer).
   */
  public ByteBuffer ownedRecord(long transactionId, long timestamp, int userFlags, List<ByteBuffer> entries,
      ByteBuffer writes, long payloadSize) {
    int payload = (int) payloadSize;
    ByteBuffer buf = ByteBuffer.allocate(Frame.HEADER_BYTES + payload);
    RecordCodec.encode(buf, Frame.HEADER_BYTES, transactionId, entries, writes);
    Frame.writeHeader(buf, 0, payload, Frame.flags(Frame.TYPE_RECORD, userFlags), timestamp, crc);
    return buf.limit(Frame.HEADER_BYTES + payload).position(0);
  }

  /** An abort marker naming {@code abortedPosition}, in a heap buffer of its own. */
  public ByteBuffer ownedAbort(long timestamp, long abortedPosition) {
    ByteBuffer buf = ByteBuffer.allocate(Frame.HEADER_BYTES + 8);
    buf.putLong(Frame.HEADER_BYTES, abortedPosition);
    Frame.writeHeader(buf, 0, 8, Frame.flags(Frame.TYPE_ABORT, 0), timestamp, crc);
    return buf.limit(Frame.HEADER_BYTES + 8).position(0);
  }

  /** An abort marker naming {@code abortedPosition}. */
  public ByteBuffer abort(long timestamp, long abortedPosition) {
    ByteBuffer buf = room(Frame.HEADER_BYTES + 8);
    buf.putLong(Frame.HEADER_BYTES, abortedPosition);
    Frame.writeHeader(buf, 0, 8, Frame.flags(Frame.TYPE_ABORT, 0), timestamp, crc);
    return buf.limit(Frame.HEADER_BYTES + 8).position(0);
  }

  /** Gives the frame (at its position) the timestamp {@code timestamp}; see {@link Frame#restamp}. */
  public void restamp(ByteBuffer frame, long timestamp) {
    Frame.restamp(frame, frame.position(), timestamp, crc);
  }

  private ByteBuffer room(int bytes) {
    if (bytes > buffer.capacity()) {
      if (bytes > MAX_CACHED) {
        return ByteBuffer.allocateDirect(bytes);
      }
      buffer = ByteBuffer.allocateDirect(Integer.highestOneBit(bytes - 1) << 1);
    }
    return buffer.clear();
  }
}
