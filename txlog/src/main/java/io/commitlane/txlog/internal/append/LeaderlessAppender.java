package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.FrameEncoder;
import io.commitlane.txlog.LogClosedException;
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
 * The {@link AppendMode#LEADERLESS} write path: {@link LeaderlessBuffers} claims, copies and
 * syncs; this class publishes its completion watermark as the log's committed watermark, samples
 * RocksDB's sequence for flush correlation, writes abort markers, and runs fsync on the force
 * thread ({@link AppendDurability}), whose force writes any buffered bytes out first.
 */
public final class LeaderlessAppender implements Appender {
  private final String name;
  private final Clock clock;
  private final SegmentSet segments;
  private final CommitWatermark watermark;
  private final AbortedPositions aborted;
  private final LeaderlessBuffers buffers;
  private final AppendDurability durability;
  /** Purges run one at a time; appends never take it (a segment switch seals before it activates). */
  private final ReentrantLock purgeLock = new ReentrantLock();
  private volatile boolean closed;

  public LeaderlessAppender(String name, LogSettings settings, SegmentSet segments, CommitWatermark watermark,
      AbortedPositions aborted, long end) {
    this.name = name;
    this.clock = settings.clock();
    this.segments = segments;
    this.watermark = watermark;
    this.aborted = aborted;
    this.buffers = new LeaderlessBuffers(name, new SwitchableSegments(), segments.active(), end, settings);
    this.durability = new AppendDurability(name, settings, end, buffers::force, buffers::claimedEnd,
        buffers::bytesClaimed, buffers::recordsClaimed);
  }

  @Override
  public TransactionLog.Appended append(long transactionId, long timestamp, MonotonicClock clock, int flags,
      List<ByteBuffer> entries, ByteBuffer writes, long payloadSize) {
    ByteBuffer frame = FrameEncoder.get().record(transactionId, timestamp, flags, entries, writes, payloadSize);
    checkOpen();
    long position = buffers.append(frame, clock);
    return new TransactionLog.Appended(position, Frame.timestamp(frame, frame.position()));
  }

  @Override
  public long finish(long position, LongSupplier sequenceSampler) {
    checkOpen();
    buffers.complete(position);
    return publish(sequenceSampler);
  }

  /**
   * The buffers moved the completion watermark; publish its payload (the end position of the
   * completed prefix) as the committed watermark, sample RocksDB's sequence now (every record
   * below it finished its write before its completion was added, which happened before this
   * read) and release waiters. Several finishers may race here: the lock keeps the watermark and
   * the flush pairs monotonic.
   */
  private long publish(LongSupplier sequenceSampler) {
    List<CompletableFuture<Void>> ready = List.of();
    long committed;
    watermark.lock.lock();
    try {
      long published = buffers.committedPosition();
      if (published > watermark.get()) {
        ready = watermark.advanceTo(published);
        if (sequenceSampler != null) {
          watermark.pair(published, sequenceSampler.getAsLong());
        }
      }
      committed = watermark.get();
    } finally {
      watermark.lock.unlock();
    }
    CommitWatermark.completeAll(ready);
    return committed;
  }

  @Override
  public void abort(long position) {
    checkOpen();
    long ordinal = buffers.requireUnfinished(position);
    ByteBuffer frame = FrameEncoder.get().abort(clock.millis(), position);
    long markerPosition = buffers.append(frame, null);
    watermark.lock.lock();
    try {
      // Marked aborted before the watermark can pass it, so no reader ever returns it.
      aborted.add(position);
    } finally {
      watermark.lock.unlock();
    }
    buffers.completeAborted(ordinal, markerPosition);
    publish(null);
    durability.awaitDurable(markerPosition);
  }

  @Override
  public void markDead(long position, AbortedPositions dead) {
    watermark.lock.lock();
    try {
      dead.add(position);
    } finally {
      watermark.lock.unlock();
    }
    if (buffers.completeIfUnfinished(position)) {
      publish(null);
    }
  }

  @Override
  public void abandon(List<Long> positions) {
    long lastMarker = -1;
    for (long position : positions) {
      ByteBuffer frame = FrameEncoder.get().abort(clock.millis(), position);
      checkOpen();
      lastMarker = buffers.append(frame, null);
      buffers.complete(lastMarker);
      watermark.lock.lock();
      try {
        aborted.add(position);
      } finally {
        watermark.lock.unlock();
      }
      publish(null);
    }
    durability.awaitMarker(lastMarker);
  }

  @Override
  public CompletableFuture<Void> whenDurable(long position) {
    return durability.whenDurable(position);
  }

  /** Records still in a buffer are written out first (no fsync), so such a reader sees every append. */
  @Override
  public long readableEnd() {
    buffers.writeThrough(buffers.claimedEnd());
    return buffers.writtenEnd();
  }

  @Override
  public Lock rotationLock() {
    return purgeLock;
  }

  @Override
  public Counters counters() {
    return durability.counters(buffers.recordsClaimed(), buffers.bytesClaimed(), buffers.unfinished(), buffers.lag());
  }

  @Override
  public TransactionLogException close() {
    closed = true;
    buffers.close();
    if (durability.forces()) {
      return durability.close(); // a last force for everything written
    }
    try {
      // A clean close leaves every claimed record in the file.
      buffers.writeThrough(buffers.claimedEnd());
    } catch (TransactionLogException e) {
      return e; // what reached the file is what recovery will find
    }
    return null;
  }

  private void checkOpen() {
    if (closed) {
      throw new LogClosedException(name);
    }
  }

  /** The segment operations of the buffers (they call them under their sync lock). */
  private final class SwitchableSegments implements LeaderlessBuffers.Segments {
    @Override
    public boolean needsSwitch(Segment s, long offset, long frameBytes) {
      return segments.needsRotation(s, offset, frameBytes);
    }

    @Override
    public Segment openNext(Segment previous) throws IOException {
      // Appends may still land in the previous segment until the switch: its end is chained in switched().
      return segments.create(previous == null ? SegmentHeader.NO_PREDECESSOR : SegmentHeader.UNKNOWN_PREDECESSOR);
    }

    @Override
    public void switched(Segment previous, Segment next) throws IOException {
      if (previous != null) {
        previous.sealed = true;
        int previousEnd = previous.number == next.number - 1 ? (int) previous.end : SegmentHeader.NO_PREDECESSOR;
        // Rewritten before anything of the new segment is written or forced: the next force of
        // the segment carries the header with it.
        next.file().write(new SegmentHeader(next.number, next.createdMillis, previousEnd).encode(), 0);
      }
      segments.activate(next);
    }

    @Override
    public Segment segment(long number) {
      return segments.get(number);
    }
  }
}
