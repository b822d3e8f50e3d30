package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.internal.segment.FrameEncoder;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.MonotonicClock;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentSet;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The {@link AppendMode#SERIALIZED} write path: an append lock orders writes to the active
 * segment (position claim, then one positional write per record, on the appending thread), so a
 * returned append is in the operating system. The uncommitted set lives under the watermark's
 * state lock, which appends take inside the append lock, never the other way round. fsync runs
 * on the force thread ({@link AppendDurability}) and never under either lock.
 */
public final class SerializedAppender implements Appender {
  private final String name;
  private final Clock clock;
  private final boolean fsync;
  private final SegmentSet segments;
  private final CommitWatermark watermark;
  private final AbortedPositions aborted;

  private final ReentrantLock appendLock = new ReentrantLock();
  // Guarded by appendLock.
  private volatile long bytesWritten;
  private volatile long recordsWritten;
  private boolean closed;

  // Guarded by watermark.lock.
  private final UncommittedPositions uncommitted = new UncommittedPositions();
  private volatile long writtenEnd;

  private final AppendDurability durability;
  private volatile TransactionLogException failure;

  public SerializedAppender(String name, LogSettings settings, SegmentSet segments, CommitWatermark watermark,
      AbortedPositions aborted, long end) {
    this.name = name;
    this.clock = settings.clock();
    this.fsync = settings.durability() == Durability.FSYNC;
    this.segments = segments;
    this.watermark = watermark;
    this.aborted = aborted;
    this.writtenEnd = end;
    this.durability = new AppendDurability(name, settings, end, this::forceActive, () -> writtenEnd,
        () -> bytesWritten, () -> recordsWritten);
  }

  @Override
  public TransactionLog.Appended append(long transactionId, long timestamp, MonotonicClock clock, int flags,
      List<ByteBuffer> entries, ByteBuffer writes, long payloadSize) {
    // Encode outside the lock: only the position claim, the timestamp and the write are serialized.
    ByteBuffer frame = FrameEncoder.get().record(transactionId, timestamp, flags, entries, writes, payloadSize);
    long frameBytes = frame.remaining();
    appendLock.lock();
    try {
      checkWritable();
      Segment segment = segmentFor(frameBytes);
      long offset = segment.end;
      long position = LogPosition.of(segment.number, offset);
      long stamped = timestamp;
      if (clock != null) {
        stamped = clock.next();
        FrameEncoder.get().restamp(frame, stamped);
      }
      write(segment, frame, offset);
      segment.noteRecord(stamped);
      segment.end = offset + frameBytes;
      bytesWritten += frameBytes;
      recordsWritten++;
      watermark.lock.lock();
      try {
        uncommitted.add(position);
        writtenEnd = LogPosition.of(segment.number, offset + frameBytes);
      } finally {
        watermark.lock.unlock();
      }
      return new TransactionLog.Appended(position, stamped);
    } finally {
      appendLock.unlock();
    }
  }

  @Override
  public void abort(long position) {
    Marker marker;
    appendLock.lock();
    try {
      checkWritable();
      watermark.lock.lock();
      try {
        requireUncommitted(position);
      } finally {
        watermark.lock.unlock();
      }
      marker = writeAbortMarker(position, true);
    } finally {
      appendLock.unlock();
    }
    CommitWatermark.completeAll(marker.ready());
    durability.awaitDurable(marker.position());
  }

  @Override
  public void markDead(long position, AbortedPositions dead) {
    List<CompletableFuture<Void>> ready = List.of();
    watermark.lock.lock();
    try {
      dead.add(position);
      if (uncommitted.finish(position)) {
        ready = watermark.advanceTo(uncommitted.watermark(writtenEnd));
      }
    } finally {
      watermark.lock.unlock();
    }
    CommitWatermark.completeAll(ready);
  }

  /** An abort marker's own position, and the waiters its write released. */
  private record Marker(long position, List<CompletableFuture<Void>> ready) {}

  /**
   * Under the append lock: writes an abort frame for the record at {@code abortedPosition} and
   * hides that record from readers; {@code uncommitted} when the record is still in the
   * uncommitted set (an abort), not when replay left it behind (an abandon).
   */
  private Marker writeAbortMarker(long abortedPosition, boolean uncommittedRecord) {
    ByteBuffer frame = FrameEncoder.get().abort(clock.millis(), abortedPosition);
    long frameBytes = frame.remaining();
    Segment segment = segmentFor(frameBytes);
    long offset = segment.end;
    write(segment, frame, offset);
    segment.end = offset + frameBytes;
    bytesWritten += frameBytes;
    watermark.lock.lock();
    try {
      writtenEnd = LogPosition.of(segment.number, offset + frameBytes);
      // Mark aborted before the watermark can pass it, so no reader ever returns it.
      aborted.add(abortedPosition);
      if (uncommittedRecord) {
        uncommitted.finish(abortedPosition);
      }
      return new Marker(LogPosition.of(segment.number, offset), watermark.advanceTo(uncommitted.watermark(writtenEnd)));
    } finally {
      watermark.lock.unlock();
    }
  }

  @Override
  public long finish(long position, LongSupplier sequenceSampler) {
    List<CompletableFuture<Void>> ready;
    long committed;
    watermark.lock.lock();
    try {
      checkOpen();
      requireUncommitted(position);
      uncommitted.finish(position);
      long before = watermark.get();
      ready = watermark.advanceTo(uncommitted.watermark(writtenEnd));
      committed = watermark.get();
      // The sample must come now, under this lock and after the position left the uncommitted
      // set: every record below the watermark has then returned from its RocksDB write, so its
      // sequence is <= the one read here. Sampled earlier, an earlier position could commit at a
      // later sequence and finish in between, and a flush at the stale sample would persist a
      // flushed position past data that flush did not hold.
      long sequence = sequenceSampler.getAsLong();
      if (committed > before) {
        watermark.pair(committed, sequence);
      }
    } finally {
      watermark.lock.unlock();
    }
    CommitWatermark.completeAll(ready);
    return committed;
  }

  @Override
  public void abandon(List<Long> positions) {
    long lastMarker = -1;
    for (long position : positions) {
      appendLock.lock();
      try {
        checkWritable();
        Marker marker = writeAbortMarker(position, false);
        lastMarker = marker.position();
        CommitWatermark.completeAll(marker.ready());
      } finally {
        appendLock.unlock();
      }
    }
    durability.awaitMarker(lastMarker);
  }

  @Override
  public CompletableFuture<Void> whenDurable(long position) {
    return durability.whenDurable(position);
  }

  @Override
  public long readableEnd() {
    return writtenEnd;
  }

  @Override
  public Lock rotationLock() {
    return appendLock;
  }

  @Override
  public Counters counters() {
    int unfinished;
    int lag;
    watermark.lock.lock();
    try {
      unfinished = uncommitted.unfinished();
      lag = uncommitted.size();
    } finally {
      watermark.lock.unlock();
    }
    return durability.counters(recordsWritten, bytesWritten, unfinished, lag);
  }

  @Override
  public TransactionLogException close() {
    appendLock.lock();
    try {
      closed = true;
    } finally {
      appendLock.unlock();
    }
    TransactionLogException notDurable = durability.close(); // under FSYNC a last force for everything written
    return notDurable != null ? notDurable : failure;
  }

  private long forceActive() throws IOException {
    // Capture the end first: every byte below it is in the segment read next or in an older one,
    // and rotation forced older ones before it published a newer active segment.
    long target = writtenEnd;
    Segment segment = segments.active();
    if (segment != null) {
      segment.force();
    }
    return target;
  }

  private void checkOpen() {
    if (closed) {
      throw new LogClosedException(name);
    }
  }

  private void checkWritable() {
    checkOpen();
    TransactionLogException failed = failure;
    if (failed == null) {
      failed = durability.failure();
    }
    if (failed != null) {
      throw new LogIOException("transaction log '" + name + "' refuses appends after an earlier"
          + " I/O failure; reopen it to recover", failed);
    }
  }

  private void requireUncommitted(long position) {
    if (!uncommitted.contains(position)) {
      throw new IllegalStateException("position " + LogPosition.toString(position)
          + " is not awaiting finish in transaction log '" + name
          + "': it was never appended, or it already finished or aborted");
    }
  }

  /** Under the append lock: the segment the next frame goes to, rotating if it is full or old. */
  private Segment segmentFor(long frameBytes) {
    Segment current = segments.active();
    if (current != null && !segments.needsRotation(current, current.end, frameBytes)) {
      return current;
    }
    return rotate(current);
  }

  private Segment rotate(Segment previous) {
    if (previous != null && fsync) {
      try {
        // The force thread only forces the active segment, so the old one is forced here.
        previous.force();
      } catch (IOException e) {
        failure = new LogIOException("fsync of segment " + previous.path + " failed", e);
        throw failure;
      }
    }
    Segment next;
    try {
      // Chain the new segment to the one it follows, so recovery notices if that one goes missing.
      next = segments.create(previous != null && previous.number == segments.nextNumber() - 1
          ? (int) previous.end : SegmentHeader.NO_PREDECESSOR);
    } catch (IOException e) {
      throw segments.cannotCreate(e);
    }
    if (previous != null) {
      previous.sealed = true;
    }
    segments.activate(next);
    return next;
  }

  private void write(Segment segment, ByteBuffer frame, long offset) {
    try {
      segment.file().write(frame, offset);
    } catch (IOException e) {
      try {
        // Remove whatever part of the frame made it, so the next append starts clean.
        segment.file().truncate(offset);
      } catch (IOException truncateError) {
        e.addSuppressed(truncateError);
        failure = new LogIOException("append to transaction log '" + name + "' failed and the"
            + " partial frame could not be removed; reopen the log to recover", e);
        throw failure;
      }
      throw new LogIOException("append to transaction log '" + name + "' failed at "
          + LogPosition.toString(LogPosition.of(segment.number, offset))
          + "; nothing was appended and the log is still usable", e);
    }
  }
}
