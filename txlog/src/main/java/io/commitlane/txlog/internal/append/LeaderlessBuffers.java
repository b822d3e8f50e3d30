package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.FrameEncoder;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogFailedException;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.MonotonicClock;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.UnfinishedLimitException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write path of a {@link AppendMode#LEADERLESS} log: no thread writes for another.
 *
 * <p><b>Claim</b> (under {@code claimLock}, O(1), no I/O, no allocation): the next record ordinal,
 * the next byte range of the active segment and the same range of the active buffer are taken
 * together, so within a segment position order is byte order and recovery reads records in order.
 * <b>Copy</b> (no lock): the frame goes into its slice; the buffer's in-flight count drops.
 * <b>Sync</b> ({@link #writeThrough}, one at a time under {@code syncLock}): swap the active buffer
 * for the empty standby under {@code claimLock} (constant time), wait for the old one's copies to
 * drain, write it outside every lock that appends need. A caller whose bytes the sync it waited
 * for already wrote returns without I/O (concurrent syncs collapse). <b>Switch</b> (segment
 * rotation, also under {@code syncLock}, so one runs at a time and concurrent triggers coalesce):
 * create the next segment, swap in a buffer bound to it, drain and write the old one, force it
 * under FSYNC, seal it.
 *
 * <p><b>Completion</b>: each claim also takes the next record ordinal of a {@link CompletionRing},
 * which tracks finished and aborted records out of order; {@link #committedPosition} is its
 * watermark as a log position, which the log publishes as its committed watermark. The claim
 * waits when the ring is full (the oldest unfinished record a whole ring behind).
 *
 * <p><b>Fail-stop</b>: once a sync, switch or force fails after claims, the bytes of records
 * already claimed (some of them maybe acknowledged to their callers as appended) cannot be
 * placed, so every later call fails with {@link LogFailedException}.
 *
 * <p>Claim, copy, sync and switch stay in one class because they are one protocol over the same
 * two locks and the same active/standby swap: each step is safe only in the order the others keep.
 */
final class LeaderlessBuffers {

  /** The log operations the appender needs (segments are the log's). */
  interface Segments {
    /** Whether a frame of {@code frameBytes} at {@code offset} of {@code s} must go to a new segment. */
    boolean needsSwitch(Segment s, long offset, long frameBytes);

    /** Creates and registers the segment after {@code previous} ({@code null}: the first one). */
    Segment openNext(Segment previous) throws IOException;

    /** {@code next} took over appends from {@code previous} (whose bytes are all written). */
    void switched(Segment previous, Segment next) throws IOException;

    /** The open segment numbered {@code number}, or {@code null}. */
    Segment segment(long number);
  }

  /** One of the two ping-pong buffers and the part of a segment it stands for. */
  private static final class Buffer {
    final ByteBuffer bytes;
    final AtomicInteger inFlight = new AtomicInteger();
    Segment segment;
    /** Segment offset of {@code bytes[0]}. */
    long fileStart;
    /** Bytes claimed; guarded by claimLock while active, by the sync holder after a swap. */
    int used;

    Buffer(int capacity) {
      this.bytes = ByteBuffer.allocateDirect(capacity);
    }

    void reset(Segment segment, long fileStart) {
      this.segment = segment;
      this.fileStart = fileStart;
      this.used = 0;
      bytes.clear();
    }
  }

  private final String logName;
  private final Segments segments;
  private final boolean fsync;
  private final int bufferCapacity;
  private final java.time.Duration ringWait;

  private final ReentrantLock claimLock = new ReentrantLock();
  private final ReentrantLock syncLock = new ReentrantLock();
  private Buffer active;
  private Buffer standby;
  private volatile long recordsClaimed;
  private volatile long bytesClaimed;
  private volatile boolean closed;

  /** Position after the last byte that reached the file (every byte below it is there). */
  private volatile long writtenEnd;
  private volatile LogFailedException failure;

  private final CompletionRing ring;

  LeaderlessBuffers(String logName, Segments segments, Segment activeSegment, long end,
      LogSettings settings) {
    this.logName = logName;
    this.segments = segments;
    this.fsync = settings.durability() == Durability.FSYNC;
    this.bufferCapacity = (int) Math.min(settings.appendBufferBytes(), settings.maxSegmentBytes());
    this.active = new Buffer(bufferCapacity);
    this.standby = new Buffer(bufferCapacity);
    active.reset(activeSegment, activeSegment == null ? 0 : activeSegment.end);
    this.writtenEnd = end;
    this.ringWait = settings.completionRingWait();
    this.ring = new CompletionRing(settings.completionRingSlots(), end);
  }

  // ---------------------------------------------------------------- append

  /**
   * Claims a place for {@code frame} (its remaining bytes, starting at index 0), copies it there
   * and returns its position. The bytes reach the file at the next sync. With a {@code clock}, the
   * frame's timestamp is taken from it inside the claim (so timestamps follow log order) and
   * written into the frame before the copy; without one the frame keeps its own.
   */
  long append(ByteBuffer frame, MonotonicClock clock) {
    int frameBytes = frame.remaining();
    long timestamp = Frame.timestamp(frame, frame.position());
    while (true) {
      Buffer b;
      long position;
      int index;
      boolean needsSwitch;
      boolean bufferFull;
      boolean ringFull = false;
      Segment current;
      claimLock.lock();
      try {
        checkWritable();
        b = active;
        current = b.segment;
        long offset = b.fileStart + b.used;
        needsSwitch = current == null || segments.needsSwitch(current, offset, frameBytes);
        bufferFull = !needsSwitch && b.used + frameBytes > bufferCapacity;
        if (!needsSwitch && !bufferFull) {
          ringFull = !ring.hasRoom();
        }
        if (!needsSwitch && !bufferFull && !ringFull) {
          position = LogPosition.of(current.number, offset);
          index = b.used;
          b.used += frameBytes;
          b.inFlight.incrementAndGet();
          ring.claim(position, position + frameBytes);
          if (clock != null) {
            timestamp = clock.next();
          }
          current.noteRecord(timestamp);
          recordsClaimed++;
          bytesClaimed += frameBytes;
        } else {
          position = -1;
          index = -1;
        }
      } finally {
        claimLock.unlock();
      }
      if (needsSwitch) {
        switchSegment(current);
        continue;
      }
      if (ringFull) {
        awaitRingSlot();
        continue;
      }
      if (bufferFull) {
        if (frameBytes > bufferCapacity) {
          return appendOversize(frame, clock);
        }
        writeThrough(ring.claimedEnd());
        continue;
      }
      try {
        if (clock != null) {
          FrameEncoder.get().restamp(frame, timestamp);
        }
        b.bytes.put(index, frame, frame.position(), frameBytes);
      } finally {
        b.inFlight.decrementAndGet();
      }
      return position;
    }
  }

  /**
   * A frame larger than a buffer: written straight to the file, in order, under both locks (so
   * nothing can claim behind it meanwhile). Rare by configuration; it blocks appends for one write.
   */
  private long appendOversize(ByteBuffer frame, MonotonicClock clock) {
    int frameBytes = frame.remaining();
    while (true) {
      awaitRingSlot();
      Segment current;
      syncLock.lock();
      try {
        claimLock.lock();
        try {
          checkWritable();
          Buffer b = active;
          current = b.segment;
          long offset = b.fileStart + b.used;
          if (current != null && !segments.needsSwitch(current, offset, frameBytes)) {
            if (!ring.hasRoom()) {
              throw new UnfinishedLimitException(logName, ring.capacity(), ringWait);
            }
            long position = LogPosition.of(current.number, offset);
            long timestamp = clock == null ? Frame.timestamp(frame, frame.position()) : clock.next();
            if (clock != null) {
              FrameEncoder.get().restamp(frame, timestamp);
            }
            writeBuffer(b, "a buffer write");
            try {
              current.file().write(frame.duplicate(), offset);
            } catch (IOException e) {
              throw failStop("an oversize record's write", e);
            }
            current.end = offset + frameBytes;
            writtenEnd = position + frameBytes;
            b.reset(current, offset + frameBytes);
            ring.claim(position, position + frameBytes);
            current.noteRecord(timestamp);
            recordsClaimed++;
            bytesClaimed += frameBytes;
            return position;
          }
        } finally {
          claimLock.unlock();
        }
      } finally {
        syncLock.unlock();
      }
      switchSegment(current);
    }
  }

  /**
   * The ring is full: the oldest unfinished record is a whole ring behind. Waits (outside every
   * lock) for its finish, up to the configured bound; that record's owner is busy with its own
   * write (a RocksDB stall) or, if it is this caller, never finishes: hence the bound.
   */
  private void awaitRingSlot() {
    long deadline = System.nanoTime() + ringWait.toNanos();
    int spins = 0;
    while (!ring.hasRoomNow()) {
      checkWritable();
      if (System.nanoTime() - deadline >= 0) {
        throw new UnfinishedLimitException(logName, ring.capacity(), ringWait);
      }
      if (++spins < 64) {
        Thread.yield();
      } else {
        java.util.concurrent.locks.LockSupport.parkNanos(50_000);
      }
    }
  }

  // ---------------------------------------------------------------- sync and switch

  /**
   * Makes sure every byte below {@code target} is in the file (a write, no fsync): swaps and
   * writes the active buffer unless a sync this caller waited for already covered it.
   *
   * @throws LogFailedException if this or an earlier sync failed
   */
  void writeThrough(long target) {
    if (writtenEnd >= target) {
      checkFailed();
      return;
    }
    syncLock.lock();
    try {
      checkFailed();
      if (writtenEnd >= target) {
        return;
      }
      Buffer full;
      claimLock.lock();
      try {
        full = active;
        standby.reset(full.segment, full.fileStart + full.used);
        active = standby;
      } finally {
        claimLock.unlock();
      }
      standby = full;
      writeBuffer(full, "a buffer write");
    } finally {
      syncLock.unlock();
    }
  }

  /** Everything claimed so far reaches the file, then an fsync; returns the position covered. */
  long force() throws IOException {
    long target = ring.claimedEnd();
    writeThrough(target);
    Segment s = segmentHolding(target);
    if (s != null) {
      try {
        s.force();
      } catch (IOException e) {
        throw failStop("an fsync", e);
      }
    }
    return target;
  }

  private Segment segmentHolding(long end) {
    return segments.segment(LogPosition.segment(end));
  }

  /** One segment switch at a time; a caller that finds it already done returns at once. */
  private void switchSegment(Segment full) {
    syncLock.lock();
    try {
      checkFailed();
      if (active.segment != full) {
        return; // another caller switched while this one waited
      }
      Segment next;
      try {
        next = segments.openNext(full);
      } catch (IOException e) {
        // Nothing was claimed in the new segment: a plain error, the log stays usable.
        throw new LogIOException("cannot create the next segment of transaction log '" + logName
            + "'", e);
      }
      Buffer old;
      claimLock.lock();
      try {
        old = active;
        standby.reset(next, SegmentHeader.BYTES);
        active = standby;
      } finally {
        claimLock.unlock();
      }
      standby = old;
      if (full != null) {
        writeBuffer(old, "a buffer write at a segment switch");
        if (fsync) {
          try {
            full.force();
          } catch (IOException e) {
            throw failStop("the fsync of a full segment at a switch", e);
          }
        }
      }
      try {
        segments.switched(full, next);
      } catch (IOException e) {
        throw failStop("the header of a new segment at a switch", e);
      }
    } finally {
      syncLock.unlock();
    }
  }

  /** Under syncLock, with {@code b} swapped out: waits for its copies, then writes it. */
  private void writeBuffer(Buffer b, String what) {
    int spins = 0;
    while (b.inFlight.get() != 0) {
      // Copies are memcpy-sized; a descheduled copier is the only long wait.
      if (++spins < 128) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
    if (b.used == 0) {
      return;
    }
    Segment s = b.segment;
    long end = b.fileStart + b.used;
    try {
      ByteBuffer bytes = b.bytes;
      bytes.limit(b.used).position(0);
      s.file().write(bytes, b.fileStart);
    } catch (IOException | RuntimeException e) {
      throw failStop(what, e);
    }
    s.end = end;
    writtenEnd = LogPosition.of(s.number, end);
    b.reset(s, end);
  }

  private LogFailedException failStop(String what, Throwable cause) {
    LogFailedException f = failure;
    if (f == null) {
      f = new LogFailedException(logName, what, cause);
      failure = f;
    }
    return f;
  }

  // ---------------------------------------------------------------- completion

  /**
   * Marks the unfinished record at {@code position} completed (after its bytes reached the file)
   * and moves the watermark; returns the record's end position, which the committed watermark
   * covers when this returns.
   *
   * @throws IllegalStateException if no unfinished record is at {@code position}
   */
  long complete(long position) {
    long ordinal = requireUnfinished(position);
    long end = ring.endOf(ordinal);
    writeThrough(end);
    ring.complete(ordinal);
    return end;
  }

  /**
   * {@link #complete} for a record that may no longer be awaiting finish (its abort got part of
   * the way) or whose log stopped: returns false, doing nothing, in those cases.
   */
  boolean completeIfUnfinished(long position) {
    if (failure != null || ring.unfinishedOrdinal(position) < 0) {
      return false;
    }
    complete(position);
    return true;
  }

  /**
   * Completes an aborted record and its abort marker together (the marker's bytes reach the file
   * first); returns the marker's end.
   */
  long completeAborted(long ordinal, long markerPosition) {
    long markerOrdinal = requireUnfinished(markerPosition);
    long end = ring.endOf(markerOrdinal);
    writeThrough(end);
    ring.complete(ordinal, markerOrdinal);
    return end;
  }

  /**
   * The ordinal of the unfinished record at {@code position}.
   *
   * @throws IllegalStateException if there is none
   */
  long requireUnfinished(long position) {
    checkFailed();
    long ordinal = ring.unfinishedOrdinal(position);
    if (ordinal < 0) {
      throw new IllegalStateException("position " + LogPosition.toString(position)
          + " is not awaiting finish in transaction log '" + logName
          + "': it was never appended, or it already finished or aborted");
    }
    return ordinal;
  }

  /** The committed watermark as a log position ({@link CompletionRing#committedPosition}). */
  long committedPosition() {
    return ring.committedPosition();
  }

  // ---------------------------------------------------------------- state

  long writtenEnd() {
    return writtenEnd;
  }

  long claimedEnd() {
    return ring.claimedEnd();
  }

  long recordsClaimed() {
    return recordsClaimed;
  }

  long bytesClaimed() {
    return bytesClaimed;
  }

  /** Records appended and not yet finished or aborted. */
  int unfinished() {
    return ring.unfinished();
  }

  /** Records appended and not yet passed by the watermark (finished or not). */
  int lag() {
    return ring.lag();
  }

  LogFailedException failure() {
    return failure;
  }

  /** Refuses appends from now on (under claimLock, so no claim is half done). */
  void close() {
    claimLock.lock();
    try {
      closed = true;
    } finally {
      claimLock.unlock();
    }
  }

  private void checkWritable() {
    if (closed) {
      throw new LogClosedException(logName);
    }
    checkFailed();
  }

  private void checkFailed() {
    LogFailedException f = failure;
    if (f != null) {
      throw new LogFailedException(f);
    }
  }
}
