package io.commitlane.txlog;

import io.commitlane.txlog.internal.append.AbortedPositions;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.RecordCodec;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentSet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * A resumable cursor over a log's records, in log order. {@link #next()} returns {@code null} when
 * nothing more is readable yet; call it again later (after {@link #whenMoreCommitted()} completes,
 * for a live tail) to get records committed since. Without {@code includeUncommitted} it never
 * returns a record at or above the committed watermark; it never returns an aborted record.
 *
 * <p>A corrupt frame makes {@link #next()} throw {@link CorruptLogFrameException} once; the reader
 * has then already moved past it, so the next call continues with the following record.
 *
 * <p>Payloads are read-only slices of a mapped sealed segment or of a read buffer, never copied
 * per record and valid after the reader moves on. Not thread-safe: one reader per thread.
 */
public final class LogReader implements AutoCloseable {
  private static final int CHUNK = 256 << 10;

  private final TransactionLog log;
  private final SegmentSet segments;
  private final AbortedPositions aborted;
  private final boolean includeUncommitted;
  private final long endPosition;
  private final long endTimestamp;
  private final CRC32C crc = new CRC32C();

  private long cursor;
  private long skipPosition = -1;
  private boolean filterStartTimestamp;
  private long startTimestamp;
  private boolean startTimestampExclusive;
  private boolean finished;
  private boolean closed;

  private Segment segment;
  private ByteBuffer view;
  private int viewBase;
  private int viewLength;

  LogReader(TransactionLog log, SegmentSet segments, AbortedPositions aborted, ReadRequest request) {
    this.log = log;
    this.segments = segments;
    this.aborted = aborted;
    this.includeUncommitted = request.includeUncommitted;
    this.endPosition = request.endPosition;
    this.endTimestamp = request.endTimestamp;
    switch (request.start) {
      case POSITION:
        cursor = Math.max(request.startValue, LogPosition.START);
        if (request.exclusive) {
          skipPosition = request.startValue;
        }
        break;
      case LAST_FLUSHED:
        cursor = log.flushedPosition();
        break;
      case TIMESTAMP:
        Segment first = segments.forTimestamp(request.startValue);
        cursor = first == null ? LogPosition.START : LogPosition.of(first.number, 0);
        filterStartTimestamp = true;
        startTimestamp = request.startValue;
        startTimestampExclusive = request.exclusive;
        break;
      default:
        throw new IllegalArgumentException(request.toString());
    }
  }

  /**
   * The next readable record, or {@code null} if there is none yet (or the end timestamp was
   * passed: see {@link #isFinished()}).
   *
   * @throws CorruptLogFrameException at a corrupt frame; the reader has moved past it
   * @throws LogClosedException if the log was closed
   */
  public LogRecord next() {
    while (true) {
      if (closed) {
        throw new IllegalStateException("reader is closed");
      }
      if (finished) {
        return null;
      }
      log.checkOpen();
      long limit = Math.min(includeUncommitted ? log.writtenEnd() : log.committedWatermark(),
          endPosition);
      if (cursor >= limit) {
        return null;
      }
      Segment s = currentSegment();
      if (s == null || cursor >= limit) {
        return null;
      }
      int off = (int) LogPosition.offset(cursor);
      // The limit lies in this segment, or in a later one; then this one is sealed and complete.
      int readableEnd = LogPosition.segment(limit) == s.number
          ? (int) LogPosition.offset(limit) : (int) s.end;
      if (off >= readableEnd) {
        Segment next = segments.atOrAfter(s.number + 1);
        if (next == null) {
          return null;
        }
        moveTo(next, SegmentHeader.BYTES);
        continue;
      }
      int length;
      try {
        length = frameAt(s, off, readableEnd);
      } catch (IOException e) {
        if (s.deleted) {
          // Purged under us: its records are past retention; go on with what is left.
          segment = null;
          continue;
        }
        throw new LogIOException("cannot read segment " + s.path, e);
      }
      long position = cursor;
      int at = off - viewBase;
      cursor = LogPosition.of(s.number, off + length);
      int flags = Frame.flagsAt(view, at);
      if (Frame.type(flags) != Frame.TYPE_RECORD || position == skipPosition
          || aborted.contains(position)) {
        continue;
      }
      long timestamp = Frame.timestamp(view, at);
      if (timestamp > endTimestamp) {
        finished = true;
        cursor = position;
        return null;
      }
      if (filterStartTimestamp) {
        if (timestamp < startTimestamp || (startTimestampExclusive && timestamp == startTimestamp)) {
          continue;
        }
        filterStartTimestamp = false;
      }
      return RecordCodec.decode(position, timestamp, Frame.userFlags(flags),
          Frame.payload(view, at));
    }
  }

  /** The position to resume from: that of the next record this reader would look at. */
  public long position() {
    return cursor;
  }

  /** Whether the reader passed its end timestamp and will return nothing more. */
  public boolean isFinished() {
    return finished;
  }

  /**
   * Completes when the committed watermark moves past {@link #position()}, i.e. when {@link
   * #next()} may have something new. It can complete early (then {@link #next()} returns {@code
   * null}; wait again): when only an abort marker was committed, or when the next record opens a
   * segment that did not exist yet. Completes on the thread that advanced the watermark:
   * hop to your own executor before doing real work.
   */
  public CompletableFuture<Void> whenMoreCommitted() {
    // Normalize the cursor to where the next frame really is (past a segment header or a sealed
    // segment's end), so the watermark moving onto it does not count as progress.
    Segment s = currentSegment();
    if (s != null && s.sealed && LogPosition.offset(cursor) >= s.end) {
      Segment next = segments.atOrAfter(s.number + 1);
      if (next != null) {
        moveTo(next, SegmentHeader.BYTES);
      }
    }
    return log.whenCommittedBeyond(cursor);
  }

  @Override
  public void close() {
    closed = true;
    view = null;
    segment = null;
  }

  private Segment currentSegment() {
    long number = LogPosition.segment(cursor);
    if (segment != null && segment.number == number && !segment.deleted) {
      return segment;
    }
    Segment s = segments.atOrAfter(number);
    if (s == null) {
      return null;
    }
    long offset = s.number == number ? LogPosition.offset(cursor) : 0;
    moveTo(s, Math.max(offset, SegmentHeader.BYTES));
    return s;
  }

  private void moveTo(Segment s, long offset) {
    segment = s;
    view = null;
    cursor = LogPosition.of(s.number, offset);
  }

  /**
   * Makes the view hold the valid frame at {@code off} and returns its length.
   *
   * @throws CorruptLogFrameException if no valid frame starts there; the cursor then points at
   *     the next valid frame
   */
  private int frameAt(Segment s, int off, int readableEnd) throws IOException {
    ensureView(s, off, Math.min(off + Frame.HEADER_BYTES, readableEnd), readableEnd);
    int result = probe(off, readableEnd);
    if (result == Frame.INCOMPLETE && viewBase + viewLength < readableEnd) {
      int need = readableEnd;
      if (viewBase + viewLength - off >= Frame.HEADER_BYTES
          && view.getInt(off - viewBase) == Frame.SYNC) {
        need = (int) Math.min(readableEnd,
            (long) off + Frame.HEADER_BYTES + Math.max(0, Frame.payloadLength(view, off - viewBase)));
      }
      view = null;
      ensureView(s, off, need, readableEnd);
      result = probe(off, readableEnd);
    }
    if (result > 0) {
      return result;
    }
    // Bad bytes inside the readable region: find the next valid frame behind them.
    ensureView(s, off, readableEnd, readableEnd);
    int searchLimit = Math.min(readableEnd, viewBase + viewLength) - viewBase;
    int resume = result == Frame.INCOMPLETE ? -1
        : Frame.nextValid(view, off - viewBase, result, searchLimit, crc);
    long bad = cursor;
    cursor = LogPosition.of(s.number, resume < 0 ? readableEnd : viewBase + resume);
    throw new CorruptLogFrameException(bad, cursor, Frame.describe(result));
  }

  private int probe(int off, int readableEnd) {
    int limit = Math.min(readableEnd, viewBase + viewLength) - viewBase;
    return Frame.probe(view, off - viewBase, limit, crc);
  }

  /** Makes the view cover segment bytes [off, needEnd). */
  private void ensureView(Segment s, int off, int needEnd, int readableEnd) throws IOException {
    if (view != null && off >= viewBase && needEnd <= viewBase + viewLength) {
      return;
    }
    if (s.sealed) {
      ByteBuffer whole = s.mapping();
      if (whole != null && needEnd <= whole.capacity()) {
        view = whole.duplicate();
        viewBase = 0;
        viewLength = whole.capacity();
        return;
      }
    }
    // A fresh buffer per refill: records already returned keep slicing the old one.
    int want = Math.max(needEnd, Math.min(readableEnd, off + CHUNK)) - off;
    ByteBuffer chunk = ByteBuffer.allocate(want);
    int read = s.file().read(chunk, off);
    view = chunk;
    viewBase = off;
    viewLength = read;
  }
}
