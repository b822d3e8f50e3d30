package io.commitlane.txlog.internal.recovery;

import io.commitlane.txlog.CorruptFrame;
import io.commitlane.txlog.CorruptLogFrameException;
import io.commitlane.txlog.LogDamage;
import io.commitlane.txlog.LogDamagedException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.RecoveryMode;
import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import io.commitlane.txlog.internal.segment.FlushedPositionFile;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.LogFiles;
import io.commitlane.txlog.internal.segment.RecordCodec;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentChain;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentScanner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Scans every segment of a log directory at open. The last segment's bad tail (a torn or
 * checksum-failing last frame with no valid frame after it) is truncated to the last valid byte:
 * it was never acknowledged. Everything else that is wrong is damage ({@link LogDamage}): a bad
 * frame with valid frames after it or ending an older segment (also kept as a {@link
 * CorruptFrame}: readers throw {@link CorruptLogFrameException} there and go on), a segment that
 * cannot be read, and breaks in the segment chain ({@link SegmentChain}). Entries that are not
 * the log's are listed as foreign and left alone.
 */
public final class LogRecovery {
  public final List<Segment> segments = new ArrayList<>();
  final List<CorruptFrame> corruptFrames = new ArrayList<>();
  public final List<LogDamage> damage = new ArrayList<>();
  final List<Path> foreign = new ArrayList<>();
  public final List<Long> abortedPositions = new ArrayList<>();
  private final List<SegmentChain.Link> links = new ArrayList<>();
  /** One past the highest segment number present (readable or not). */
  public long nextSegmentNumber;
  long records;
  long tornBytesTruncated;
  long newestTimestamp = Long.MIN_VALUE;

  private LogRecovery() {}

  public static LogRecovery run(LogFileSystem fs, Path directory, long nowMillis, FlushedPositionFile.Stored flushed)
      throws IOException {
    LogRecovery recovery = new LogRecovery();
    List<Path> segmentFiles = new ArrayList<>();
    for (Path file : fs.list(directory)) {
      String name = file.getFileName().toString();
      if (Segment.parseFileName(name) >= 0) {
        segmentFiles.add(file);
      } else if (!LogFiles.isSideFile(name)) {
        recovery.foreign.add(file);
      }
    }
    List<Long> unreadable = new ArrayList<>();
    for (Path other : fs.listOthers(directory)) {
      String name = other.getFileName().toString();
      long number = Segment.parseFileName(name);
      if (number >= 0) {
        unreadable.add(number);
        recovery.unreadable(number, "is not a regular file");
      }
      if (!name.equals(FlushedPositionFile.NAME)) { // damage of its own kind (FLUSHED_POSITION), not a stranger
        recovery.foreign.add(other);
      }
    }
    long highest = -1;
    for (Path p : segmentFiles) {
      highest = Math.max(highest, Segment.parseFileName(p.getFileName().toString()));
    }
    for (long n : unreadable) {
      highest = Math.max(highest, n);
    }
    recovery.nextSegmentNumber = highest + 1;
    for (Path file : segmentFiles) {
      long number = Segment.parseFileName(file.getFileName().toString());
      recovery.recoverSegment(fs, file, number == highest, nowMillis);
    }
    recovery.links.sort(Comparator.comparingLong(SegmentChain.Link::number));
    recovery.damage.addAll(SegmentChain.check(recovery.links, flushed));
    recovery.damage.sort(Comparator.comparingLong(LogDamage::position));
    return recovery;
  }

  private void unreadable(long number, String why) {
    links.add(new SegmentChain.Link(number, SegmentHeader.UNKNOWN_PREDECESSOR, 0, false));
    damage.add(new LogDamage(LogDamage.Kind.UNREADABLE_SEGMENT, LogPosition.of(number, 0),
        LogPosition.of(number + 1, SegmentHeader.BYTES), Segment.fileName(number) + " " + why));
  }

  private void recoverSegment(LogFileSystem fs, Path path, boolean last, long nowMillis)
      throws IOException {
    long number = Segment.parseFileName(path.getFileName().toString());
    LogFile file;
    long size;
    try {
      file = fs.open(path, last);
      size = file.size();
    } catch (IOException e) {
      unreadable(number, "cannot be opened: " + e);
      return;
    }
    boolean keep = false;
    try {
      if (size > LogSettings.MAX_SEGMENT_BYTES + SegmentHeader.BYTES) {
        unreadable(number, "is larger than any log writes (" + size + " bytes)");
        return;
      }
      if (last && size < SegmentHeader.BYTES) {
        // Created right before a crash, header never completed: nothing to keep.
        file.close();
        fs.delete(path);
        keep = true; // closed already
        return;
      }
      ByteBuffer bytes;
      try {
        bytes = size == 0 ? ByteBuffer.allocate(0) : file.map(0, size);
      } catch (IOException e) {
        unreadable(number, "cannot be read: " + e);
        return;
      }
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
        keep = true; // closed already
        return;
      }
      if (header == null || header.segmentNumber != number) {
        int resume = size <= SegmentHeader.BYTES ? (int) size
            : Math.max(SegmentHeader.BYTES, nextValidFrom(view, (int) size));
        corrupt(new CorruptFrame(LogPosition.of(number, 0), LogPosition.of(number, resume),
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
          LogRecovery.this.corrupt(new CorruptFrame(LogPosition.of(number, offset),
              LogPosition.of(number, resume), reason));
        }

        @Override
        public void tail(int offset, String reason) {
          if (last) {
            tailAt[0] = offset;
          } else {
            LogRecovery.this.corrupt(new CorruptFrame(LogPosition.of(number, offset),
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
      links.add(new SegmentChain.Link(number,
          header == null ? SegmentHeader.UNKNOWN_PREDECESSOR : header.previousEnd, segment.end, true));
      keep = true;
    } finally {
      if (!keep) {
        file.close();
      }
    }
  }

  private void corrupt(CorruptFrame frame) {
    corruptFrames.add(frame);
    damage.add(new LogDamage(LogDamage.Kind.CORRUPT_FRAME, frame.position(), frame.resumePosition(),
        frame.reason()));
  }

  private static int nextValidFrom(ByteBuffer view, int limit) {
    int at = Frame.nextValid(view, SegmentHeader.BYTES - 1, Frame.BAD_HEADER, limit,
        new java.util.zip.CRC32C());
    return at < 0 ? limit : at;
  }

  /** What recovery found, as the open log reports it for its whole life. */
  public record Findings(long records, List<CorruptFrame> corruptFrames, List<LogDamage> damage, List<Path> foreign,
      long tornBytesTruncated, long newestTimestamp) {}

  public Findings findings() {
    return new Findings(records, List.copyOf(corruptFrames), List.copyOf(damage), List.copyOf(foreign),
        tornBytesTruncated, newestTimestamp);
  }

  /**
   * {@link RecoveryMode#ABSOLUTE_CONSISTENCY} opens only an undamaged log: if anything is damaged,
   * closes the segments recovery opened and throws. The other modes open damaged logs too.
   *
   * @throws LogDamagedException naming the damage
   */
  public void refuseDamage(RecoveryMode mode, String logName) throws IOException {
    if (!damage.isEmpty() && mode == RecoveryMode.ABSOLUTE_CONSISTENCY) {
      for (Segment s : segments) {
        s.close();
      }
      throw new LogDamagedException(logName, damage);
    }
  }

  /** The position after the last valid frame of the log, or {@link LogPosition#START}. */
  public long end() {
    if (segments.isEmpty()) {
      return LogPosition.START;
    }
    Segment last = segments.get(segments.size() - 1);
    return LogPosition.of(last.number, last.end);
  }
}
