package io.commitlane.txlog;

import io.commitlane.txlog.fs.LogFile;
import io.commitlane.txlog.fs.LogFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Scans every segment of a log directory at open. The last segment's bad tail (a torn or
 * checksum-failing last frame with no valid frame after it) is truncated to the last valid byte;
 * a bad frame with valid frames after it, or a bad tail of an older segment, is kept and reported
 * as one corrupt frame (readers throw {@link CorruptLogFrameException} there and go on).
 */
final class LogRecovery {
  final List<Segment> segments = new ArrayList<>();
  final List<CorruptFrame> corruptFrames = new ArrayList<>();
  final List<Long> abortedPositions = new ArrayList<>();
  long records;
  long tornBytesTruncated;
  long newestTimestamp = Long.MIN_VALUE;

  private LogRecovery() {}

  static LogRecovery run(LogFileSystem fs, Path directory, long nowMillis) throws IOException {
    LogRecovery recovery = new LogRecovery();
    List<Path> files = fs.list(directory);
    List<Path> segmentFiles = new ArrayList<>();
    for (Path file : files) {
      if (Segment.parseFileName(file.getFileName().toString()) >= 0) {
        segmentFiles.add(file);
      }
    }
    for (int i = 0; i < segmentFiles.size(); i++) {
      recovery.recoverSegment(fs, segmentFiles.get(i), i == segmentFiles.size() - 1, nowMillis);
    }
    return recovery;
  }

  private void recoverSegment(LogFileSystem fs, Path path, boolean last, long nowMillis)
      throws IOException {
    long number = Segment.parseFileName(path.getFileName().toString());
    LogFile file = fs.open(path, last);
    boolean keep = false;
    try {
      long size = file.size();
      if (size > LogSettings.MAX_SEGMENT_BYTES + SegmentHeader.BYTES) {
        throw new IOException("segment " + path + " is larger than any log writes: " + size);
      }
      if (last && size < SegmentHeader.BYTES) {
        // Created right before a crash, header never completed: nothing to keep.
        file.close();
        fs.delete(path);
        return;
      }
      ByteBuffer bytes = size == 0 ? ByteBuffer.allocate(0) : file.map(0, size);
      ByteBuffer view = bytes.duplicate();
      SegmentHeader header = SegmentHeader.decode(view, (int) size);
      long created = header != null ? header.createdMillis : nowMillis;
      Segment segment = new Segment(number, path, created, file, size);
      if (header == null && last && nextValidFrom(view, (int) size) == size) {
        // No header and no valid frame: a segment whose creation never reached the disk (e.g.
        // zero-filled after a power loss). Nothing in it was ever acknowledged durable.
        bytes = null;
        view = null;
        tornBytesTruncated += size;
        file.close();
        fs.delete(path);
        return;
      }
      if (header == null || header.segmentNumber != number) {
        int resume = size <= SegmentHeader.BYTES ? (int) size
            : Math.max(SegmentHeader.BYTES, nextValidFrom(view, (int) size));
        corruptFrames.add(new CorruptFrame(LogPosition.of(number, 0), LogPosition.of(number, resume),
            "segment header invalid"));
      }
      long[] tailAt = {-1};
      SegmentScanner.scan(view, SegmentHeader.BYTES, (int) size, new SegmentScanner.Visitor() {
        @Override
        public void frame(ByteBuffer buf, int offset, int length) {
          int flags = Frame.flagsAt(buf, offset);
          if (Frame.type(flags) == Frame.TYPE_RECORD) {
            long ts = Frame.timestamp(buf, offset);
            segment.noteRecord(ts);
            newestTimestamp = Math.max(newestTimestamp, ts);
            records++;
          } else if (Frame.type(flags) == Frame.TYPE_ABORT) {
            abortedPositions.add(RecordCodec.abortedPosition(Frame.payload(buf, offset)));
          }
        }

        @Override
        public void corrupt(int offset, int resume, String reason) {
          corruptFrames.add(new CorruptFrame(LogPosition.of(number, offset),
              LogPosition.of(number, resume), reason));
        }

        @Override
        public void tail(int offset, String reason) {
          if (last) {
            tailAt[0] = offset;
          } else {
            corruptFrames.add(new CorruptFrame(LogPosition.of(number, offset),
                LogPosition.of(number, size), reason + " (to the end of the segment)"));
          }
        }
      });
      if (tailAt[0] >= 0) {
        // The mapping must not be touched past the new end; drop it before truncating.
        bytes = null;
        view = null;
        file.truncate(tailAt[0]);
        file.force();
        tornBytesTruncated += size - tailAt[0];
        segment.end = tailAt[0];
      }
      if (!last) {
        segment.sealed = true;
        segment.adoptMapping(bytes); // readers reuse the mapping recovery already made
      }
      segments.add(segment);
      keep = true;
    } finally {
      if (!keep) {
        file.close();
      }
    }
  }

  private static int nextValidFrom(ByteBuffer view, int limit) {
    int at = Frame.nextValid(view, SegmentHeader.BYTES - 1, Frame.BAD_HEADER, limit,
        new java.util.zip.CRC32C());
    return at < 0 ? limit : at;
  }

  /** The position after the last valid frame of the log, or {@link LogPosition#START}. */
  long end() {
    if (segments.isEmpty()) {
      return LogPosition.START;
    }
    Segment last = segments.get(segments.size() - 1);
    return LogPosition.of(last.number, last.end);
  }
}
