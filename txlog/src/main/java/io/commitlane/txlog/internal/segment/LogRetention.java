package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.PurgeResult;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.internal.fs.LogFileSystem;
import io.commitlane.txlog.internal.append.AbortedPositions;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Which segments of a log may be deleted, and deleting them. A segment may go once it is sealed,
 * its newest record is older than the cutoff and every record in it lies below the flushed
 * position (crash replay may need the rest); segments go oldest first, so nothing newer is
 * deleted while an older one stays, and the active segment never goes.
 */
public final class LogRetention {
  private final SegmentSet segments;
  private final FlushedPosition flushed;
  private final AbortedPositions aborted;
  /** The appender's rotation lock: no segment is sealed or activated while purge picks. */
  private final Lock rotationLock;
  private final LogView log;
  private final LogFileSystem fs;
  private final Clock clock;
  private final Duration retention;

  public LogRetention(SegmentSet segments, FlushedPosition flushed, AbortedPositions aborted, Lock rotationLock,
      LogView log, LogSettings settings) {
    this.segments = segments;
    this.flushed = flushed;
    this.aborted = aborted;
    this.rotationLock = rotationLock;
    this.log = log;
    this.fs = settings.fileSystem();
    this.clock = settings.clock();
    this.retention = settings.retention();
  }

  /** {@link TransactionLog#purge}. */
  public PurgeResult purge(Instant olderThan) {
    long cutoff = olderThan.toEpochMilli();
    long flushedAt = flushed.get();
    List<Segment> doomed = new ArrayList<>();
    int keptUnflushed = 0;
    boolean activeKept = false;
    rotationLock.lock();
    try {
      if (log.isClosed()) {
        throw new LogClosedException(log.name());
      }
      Segment active = segments.active();
      for (Segment s : segments.all()) {
        if (s.newestMillis() >= cutoff) {
          break;
        }
        if (s == active || !s.sealed) {
          activeKept = true;
          break;
        }
        if (holdsUnflushed(s, flushedAt)) {
          keptUnflushed++;
          continue;
        }
        if (keptUnflushed == 0) {
          doomed.add(s);
        }
      }
      for (Segment s : doomed) {
        segments.remove(s);
        s.deleted = true;
      }
    } finally {
      rotationLock.unlock();
    }
    long bytes = 0;
    for (Segment s : doomed) {
      bytes += s.end;
      try {
        s.close();
        fs.delete(s.path);
      } catch (IOException e) {
        throw new LogIOException("cannot delete segment " + s.path, e);
      }
    }
    Segment first = segments.first();
    if (first != null) {
      aborted.dropBelow(LogPosition.of(first.number, 0));
    }
    return new PurgeResult(doomed.size(), bytes, keptUnflushed, activeKept);
  }

  /** {@link TransactionLog#purgeExpired}. */
  public PurgeResult purgeExpired() {
    return purge(clock.instant().minus(retention));
  }

  /** Sealed segments that no purge may delete yet because they hold records at or above {@code flushedAt}. */
  public int keptUnflushed(long flushedAt) {
    int kept = 0;
    for (Segment s : segments.all()) {
      if (s.sealed && holdsUnflushed(s, flushedAt)) {
        kept++;
      }
    }
    return kept;
  }

  private static boolean holdsUnflushed(Segment s, long flushedAt) {
    return LogPosition.of(s.number, s.end) > flushedAt;
  }
}
