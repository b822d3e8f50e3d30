package io.commitlane.txlog;

import io.commitlane.txlog.internal.fs.JdkFileSystem;
import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.append.AbortedPositions;
import io.commitlane.txlog.internal.segment.FlushedPositionFile;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.RecordCodec;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentScanner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The records of a log directory at or after its persisted flushed position that carry writes:
 * those crash replay at the next open offers (it applies those RocksDB does not hold). Found
 * without opening the log: no lock, no recovery, nothing truncated or written, so it may run beside
 * a process that has the log open (a frame it is still writing is left out). Segments wholly below
 * the flushed position are not read. Aborted records are left out, as replay leaves them out;
 * a corrupt frame or an unreadable segment is skipped ({@link LogInspector} reports damage). Used
 * by read-only opens to say what they did not apply.
 */
public final class UnflushedRecords {
  private UnflushedRecords() {}

  /** Their positions, ascending; empty for a directory that holds no log. */
  public static long[] positions(Path directory) throws IOException {
    long flushed = new FlushedPositionFile(JdkFileSystem.INSTANCE, directory).readOnly().position();
    List<Path> segments = new ArrayList<>();
    for (Path p : JdkFileSystem.INSTANCE.list(directory)) {
      long number = Segment.parseFileName(p.getFileName().toString());
      if (number >= LogPosition.segment(flushed)) {
        segments.add(p);
      }
    }
    segments.sort(null); // fixed-width numbers: name order is segment order
    long[] records = new long[16];
    int count = 0;
    AbortedPositions aborted = new AbortedPositions();
    for (Path segment : segments) {
      long number = Segment.parseFileName(segment.getFileName().toString());
      ByteBuffer bytes;
      try (LogFile file = JdkFileSystem.INSTANCE.open(segment, false)) {
        long size = Math.min(file.size(), LogSettings.MAX_SEGMENT_BYTES + SegmentHeader.BYTES);
        if (size < SegmentHeader.BYTES) {
          continue;
        }
        bytes = ByteBuffer.allocate((int) size); // a copy, not a mapping: a live process may cut the file meanwhile
        while (bytes.hasRemaining() && file.read(bytes, bytes.position()) > 0) {
          // until the end of what was there
        }
        bytes.limit(bytes.position());
      } catch (IOException e) {
        continue; // purged meanwhile, or unreadable: nothing of it can be replayed either
      }
      long[][] out = {records};
      int[] n = {count};
      SegmentScanner.scan(bytes, SegmentHeader.BYTES, bytes.limit(), new SegmentScanner.Visitor() {
        @Override
        public void frame(ByteBuffer buf, int offset, int length) {
          long position = LogPosition.of(number, offset);
          int type = Frame.type(Frame.flagsAt(buf, offset));
          ByteBuffer payload = Frame.payload(buf, offset);
          if (type == Frame.TYPE_ABORT) {
            aborted.add(RecordCodec.abortedPosition(payload));
          } else if (type == Frame.TYPE_RECORD && position >= flushed && carriesWrites(buf, offset, position, payload)) {
            if (n[0] == out[0].length) {
              out[0] = Arrays.copyOf(out[0], n[0] * 2);
            }
            out[0][n[0]++] = position;
          }
        }

        @Override
        public void corrupt(int offset, int resume, String reason) {}

        @Override
        public void tail(int offset, String reason) {}
      });
      records = out[0];
      count = n[0];
    }
    long[] live = new long[count];
    int kept = 0;
    for (int i = 0; i < count; i++) {
      if (!aborted.contains(records[i])) {
        live[kept++] = records[i];
      }
    }
    return Arrays.copyOf(live, kept);
  }

  /** A record logged without its writes (replay off then) restores nothing; one that does not decode is skipped. */
  private static boolean carriesWrites(ByteBuffer buf, int offset, long position, ByteBuffer payload) {
    try {
      return RecordCodec.decode(position, Frame.timestamp(buf, offset), Frame.userFlags(Frame.flagsAt(buf, offset)), payload)
          .writes() != null;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
