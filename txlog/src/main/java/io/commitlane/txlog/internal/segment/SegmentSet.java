package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.internal.recovery.LogRecovery;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.internal.fs.LogFile;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The segment files of one log, by number, and which one takes appends. Readers look segments up
 * without a lock; only the log's write path (one appender, under its own lock or role) creates
 * and activates segments, so the next segment number needs no lock of its own.
 */
public final class SegmentSet {
  private final ConcurrentSkipListMap<Long, Segment> byNumber = new ConcurrentSkipListMap<>();
  private final Path directory;
  private final String logName;
  private final LogFileSystem fs;
  private final Clock clock;
  private final boolean fsync;
  private final long maxSegmentBytes;
  private final long maxSegmentAgeMillis;
  private volatile Segment active;
  private long nextNumber;
  /** Written before the first segment of a brand-new log ({@link FlushedPosition#storeInitial()}). */
  private FlushedPosition flushed;

  private SegmentSet(Path directory, String logName, LogSettings settings) {
    this.directory = directory;
    this.logName = logName;
    this.fs = settings.fileSystem();
    this.clock = settings.clock();
    this.fsync = settings.durability() == Durability.FSYNC;
    this.maxSegmentBytes = settings.maxSegmentBytes();
    this.maxSegmentAgeMillis = settings.maxSegmentAge().toMillis();
  }

  /**
   * The segments recovery found, with appends set to continue where the log can take them: in
   * the last segment, unless the persisted flushed position lies past the log's end (its unsynced
   * tail was lost with the machine) or an unreadable entry sits above the last readable segment.
   * New records must then land above both, or replay would skip them or read them out of order:
   * the last segment is sealed and the next append starts a new one.
   *
   * @throws IOException if the last segment cannot be forced (under FSYNC)
   */
  public static SegmentSet recovered(Path directory, String logName, LogSettings settings, LogRecovery recovery,
      FlushedPosition flushed) throws IOException {
    long flushedPosition = flushed.get();
    SegmentSet segments = new SegmentSet(directory, logName, settings);
    segments.flushed = flushed;
    for (Segment s : recovery.segments) {
      segments.byNumber.put(s.number, s);
    }
    long end = recovery.end();
    Segment last = segments.last();
    long nextSegmentNumber = recovery.nextSegmentNumber;
    if (last != null && segments.fsync) {
      // Recovered bytes may sit only in the page cache (after a process crash); they count as
      // committed now, so make them durable before anything builds on them.
      last.force();
    }
    if (flushedPosition > end || (last != null && last.number != nextSegmentNumber - 1)) {
      if (last != null) {
        last.sealed = true;
      }
      if (flushedPosition > end) {
        nextSegmentNumber = Math.max(nextSegmentNumber, LogPosition.segment(flushedPosition) + 1);
      }
    } else {
      segments.activate(last);
    }
    segments.nextNumber = nextSegmentNumber;
    return segments;
  }

  /** The segment appends go to, or {@code null} until the first append creates one. */
  public Segment active() {
    return active;
  }

  public void activate(Segment s) {
    active = s;
  }

  /** The number the next created segment gets. */
  public long nextNumber() {
    return nextNumber;
  }

  /**
   * Creates, registers and returns the next segment file (header written, forced with the
   * directory under FSYNC). A failed creation leaves no file behind.
   *
   * @param previousEnd where the previous segment ends, for the header's chain
   */
  public Segment create(int previousEnd) throws IOException {
    long number = nextNumber;
    Path path = directory.resolve(Segment.fileName(number));
    long created = clock.millis();
    flushed.storeInitial();
    LogFile file = null;
    try {
      file = fs.create(path);
      file.write(new SegmentHeader(number, created, previousEnd).encode(), 0);
      if (fsync) {
        file.force();
        fs.forceDirectory(directory);
      }
    } catch (IOException e) {
      closeQuietly(file);
      try {
        fs.delete(path);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    Segment next = new Segment(number, path, created, file, SegmentHeader.BYTES);
    byNumber.put(number, next);
    nextNumber = number + 1;
    return next;
  }

  /** The error for a segment that could not be created. */
  public LogIOException cannotCreate(IOException cause) {
    return new LogIOException("cannot create segment " + directory.resolve(Segment.fileName(nextNumber))
        + " of transaction log '" + logName + "'", cause);
  }

  /** Whether a frame of {@code frameBytes} at {@code offset} of {@code s} goes to a new segment. */
  public boolean needsRotation(Segment s, long offset, long frameBytes) {
    return needsRotation(s.createdMillis, offset, frameBytes);
  }

  /** As {@link #needsRotation(Segment, long, long)} for a segment created at {@code createdMillis}. */
  public boolean needsRotation(long createdMillis, long offset, long frameBytes) {
    boolean empty = offset <= SegmentHeader.BYTES;
    boolean full = offset + frameBytes > maxSegmentBytes;
    boolean old = clock.millis() - createdMillis >= maxSegmentAgeMillis;
    return !empty && (full || old);
  }

  public Segment get(long number) {
    return byNumber.get(number);
  }

  public Segment atOrAfter(long number) {
    Map.Entry<Long, Segment> e = byNumber.ceilingEntry(number);
    return e == null ? null : e.getValue();
  }

  /** The latest segment whose first record is older than {@code timestamp}, else the oldest. */
  public Segment forTimestamp(long timestamp) {
    for (Segment s : byNumber.descendingMap().values()) {
      long first = s.firstTimestamp;
      if (first != Long.MIN_VALUE && first < timestamp) {
        return s;
      }
    }
    return first();
  }

  Segment first() {
    Map.Entry<Long, Segment> e = byNumber.firstEntry();
    return e == null ? null : e.getValue();
  }

  Segment last() {
    Map.Entry<Long, Segment> e = byNumber.lastEntry();
    return e == null ? null : e.getValue();
  }

  /** Every segment, oldest first (a live view). */
  public Collection<Segment> all() {
    return byNumber.values();
  }

  void remove(Segment s) {
    byNumber.remove(s.number);
  }

  boolean isEmpty() {
    return byNumber.isEmpty();
  }

  /** Closes every file; returns the last error (all are closed regardless). */
  public IOException closeAll() {
    IOException error = null;
    for (Segment s : byNumber.values()) {
      try {
        s.close();
      } catch (IOException e) {
        error = e;
      }
    }
    return error;
  }

  private static void closeQuietly(LogFile file) {
    if (file != null) {
      try {
        file.close();
      } catch (IOException ignored) {
        // Already failing; the original error is what matters.
      }
    }
  }
}
