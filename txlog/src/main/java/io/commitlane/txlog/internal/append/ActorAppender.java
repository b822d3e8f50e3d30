package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.internal.segment.FrameEncoder;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogFailedException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.MonotonicClock;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentSet;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The {@link AppendMode#ACTOR} write path: one writer, after BookKeeper's journal.
 *
 * <p><b>Claim</b> (committing thread, under {@code claimLock}, O(1), no I/O): the record's
 * position (the next byte range, rotating to a new segment number when the current one is full or
 * old) and its timestamp are taken, and its frame, encoded beforehand into a buffer of its own, is
 * queued in the same critical section. So queue order is position order is timestamp order, and a
 * commit holding its locks orders its record after every earlier commit to the same keys. Nothing
 * else happens on the committing thread: no write, no wait, not even a wake-up (the finish that
 * always follows wakes the writer).
 *
 * <p><b>Writer turn</b> (whoever holds {@code writerLock}: the host's thread, see {@link
 * LogWriterHost}): one batch of {@link BatchWriter}, written with one write, forced once if a
 * commit in it waits for durability, finished and sampled after removal; then, with the role let
 * go, the acknowledgements it made good are completed.
 *
 * <p><b>Who runs turns.</b> A finish or durability request wakes the host if no turn is pending
 * ({@code scheduled}); a turn that leaves nothing queued clears {@code scheduled} and checks once
 * more, so no wake-up is lost. Blocking calls (finish, abort, abandon, a reader of uncommitted
 * records, close) take the role themselves rather than wait for a wake-up.
 *
 * <p><b>Fail-stop</b>: a write, force or segment creation that fails has records of other callers
 * behind it, so the log stops: the batch's and every later finish, abort and durability request
 * fail with {@link LogFailedException}, and appends are refused.
 */
public final class ActorAppender implements Appender {

  private final String name;
  private final TransactionLog log;
  private final Clock clock;
  private final boolean fsync;
  private final SegmentSet segments;
  private final CommitWatermark watermark;

  // Claim side, guarded by claimLock.
  private final ReentrantLock claimLock = new ReentrantLock();
  /** The segment claims go to, or -1: the next claim opens segment {@code nextSegment}. */
  private long claimSegment;
  private long claimOffset;
  private long claimSegmentCreated;
  private long nextSegment;
  private volatile long claimedEnd;
  private volatile long recordsClaimed;
  private volatile long bytesClaimed;
  private volatile boolean closed;

  private final WriterQueue queue = new WriterQueue();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final WriterThread ownThread;
  private volatile LogWriterHost host;

  /** The writer's role: whoever holds it runs batches. */
  private final ReentrantLock writerLock = new ReentrantLock();
  private final BatchWriter writer;

  public ActorAppender(TransactionLog log, String name, LogSettings settings, SegmentSet segments, CommitWatermark watermark,
      AbortedPositions aborted, long end) {
    this.log = log;
    this.name = name;
    this.clock = settings.clock();
    this.fsync = settings.durability() == Durability.FSYNC;
    this.segments = segments;
    this.watermark = watermark;
    this.writer = new BatchWriter(name, settings, segments, watermark, aborted, queue, end);
    this.claimedEnd = end;
    this.ownThread = new WriterThread(name);
    this.host = ownThread;
    Segment active = segments.active();
    this.nextSegment = segments.nextNumber();
    if (active != null) {
      claimSegment = active.number;
      claimOffset = active.end;
      claimSegmentCreated = active.createdMillis;
    } else {
      claimSegment = -1;
    }
  }

  // ---------------------------------------------------------------- callers

  @Override
  public TransactionLog.Appended append(long transactionId, long timestamp, MonotonicClock clock, int flags,
      List<ByteBuffer> entries, ByteBuffer writes, long payloadSize) {
    // Encoded outside the lock into a buffer of its own: the frame outlives this call.
    BatchWriter.RecordItem item = new BatchWriter.RecordItem(
        FrameEncoder.get().ownedRecord(transactionId, timestamp, flags, entries, writes, payloadSize));
    int frameBytes = item.frame.remaining();
    claimLock.lock();
    try {
      checkOpen();
      item.timestamp = clock == null ? timestamp : clock.next();
      item.position = claim(frameBytes);
      queue.offer(item);
      recordsClaimed++;
      bytesClaimed += frameBytes;
    } finally {
      claimLock.unlock();
    }
    return new TransactionLog.Appended(item.position, item.timestamp);
  }

  /** Under claimLock: the next byte range, in a new segment if this one is full or old. */
  private long claim(int frameBytes) {
    if (claimSegment < 0 || segments.needsRotation(claimSegmentCreated, claimOffset, frameBytes)) {
      claimSegment = nextSegment++;
      claimOffset = SegmentHeader.BYTES;
      claimSegmentCreated = clock.millis();
    }
    long position = LogPosition.of(claimSegment, claimOffset);
    claimOffset += frameBytes;
    claimedEnd = position + frameBytes;
    return position;
  }

  @Override
  public CompletableFuture<Void> finishAsync(long position, LongSupplier sequenceSampler) {
    BatchWriter.FinishItem item = new BatchWriter.FinishItem(position, sequenceSampler, fsync);
    LogFailedException f = writer.failure();
    if (f != null || closed) {
      item.done.completeExceptionally(f != null ? new LogFailedException(f) : new LogClosedException(name));
      return item.done;
    }
    submit(item);
    return item.done;
  }

  @Override
  public long finish(long position, LongSupplier sequenceSampler) {
    checkOpen();
    checkNotWriter();
    BatchWriter.FinishItem item = new BatchWriter.FinishItem(position, sequenceSampler, false);
    queue.offer(item);
    runUntilDone(item);
    return item.watermarkAfter;
  }

  @Override
  public void abort(long position) {
    checkNotWriter();
    runUntilDone(claimMarker(position, true));
  }

  /** Through the writer, in queue order after the record; a stopped or closed log only hides it. */
  @Override
  public void markDead(long position, AbortedPositions dead) {
    if (writer.failure() == null && !closed) {
      checkNotWriter();
      BatchWriter.DeadItem item = new BatchWriter.DeadItem(position);
      queue.offer(item);
      try {
        runUntilDone(item);
        return;
      } catch (TransactionLogException e) {
        // stopped or closed meanwhile: nothing finishes any more, readers only need to skip it
      }
    }
    watermark.lock.lock();
    try {
      dead.add(position);
    } finally {
      watermark.lock.unlock();
    }
  }

  @Override
  public void abandon(List<Long> positions) {
    checkNotWriter();
    List<BatchWriter.MarkerItem> markers = new ArrayList<>(positions.size());
    for (long position : positions) {
      markers.add(claimMarker(position, false));
    }
    for (BatchWriter.MarkerItem m : markers) {
      runUntilDone(m);
    }
  }

  private BatchWriter.MarkerItem claimMarker(long target, boolean finishesTarget) {
    BatchWriter.MarkerItem item = new BatchWriter.MarkerItem(
        FrameEncoder.get().ownedAbort(clock.millis(), target), target, finishesTarget);
    int frameBytes = item.frame.remaining();
    claimLock.lock();
    try {
      checkOpen();
      item.position = claim(frameBytes);
      queue.offer(item);
      bytesClaimed += frameBytes;
    } finally {
      claimLock.unlock();
    }
    return item;
  }

  @Override
  public CompletableFuture<Void> whenDurable(long position) {
    if (!fsync) {
      return CompletableFuture.completedFuture(null);
    }
    if (position >= claimedEnd) {
      throw new IllegalArgumentException("position " + LogPosition.toString(position)
          + " was not appended to transaction log '" + name + "'");
    }
    if (position < writer.durableEnd()) {
      return CompletableFuture.completedFuture(null);
    }
    LogFailedException f = writer.failure();
    if (f != null) {
      return CompletableFuture.failedFuture(new LogFailedException(f));
    }
    if (closed) {
      return CompletableFuture.failedFuture(new LogClosedException(name));
    }
    BatchWriter.SyncItem item = new BatchWriter.SyncItem(true);
    submit(item);
    return item.done;
  }

  /** Everything claimed so far is written first (no fsync), so such a reader sees every append. */
  @Override
  public long readableEnd() {
    if (writer.writtenEnd() >= claimedEnd || writer.failure() != null || closed) {
      return writer.writtenEnd();
    }
    checkNotWriter();
    BatchWriter.SyncItem item = new BatchWriter.SyncItem(false);
    queue.offer(item);
    runUntilDone(item);
    return writer.writtenEnd();
  }

  @Override
  public long inFlushOrder(LongSupplier step) {
    // In the writer's order: a flush event is handled between batches, never inside one.
    writerLock.lock();
    try {
      return step.getAsLong();
    } finally {
      writerLock.unlock();
    }
  }

  /** Queues {@code item} and makes sure a turn will take it. */
  private void submit(BatchWriter.AwaitedItem item) {
    queue.offer(item);
    if (closed) {
      if (!writerLock.isHeldByCurrentThread()) {
        settle(item); // close may be past its drain: settle it here
      }
    } else if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      host.wake(log);
    }
  }

  /** A blocking caller: takes the writer's role and runs batches until {@code item} completes. */
  private void runUntilDone(BatchWriter.AwaitedItem item) {
    settle(item);
    try {
      item.done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Blocking calls take the role: from the writer itself (a sampler calling back) that would re-enter a batch. */
  private void checkNotWriter() {
    if (writerLock.isHeldByCurrentThread()) {
      throw new IllegalStateException("transaction log '" + name + "' was called from its own writer: a sequence"
          + " sampler must not finish, abort, abandon or read uncommitted records of its log (finishAsync is fine)");
    }
  }

  private void settle(BatchWriter.AwaitedItem item) {
    while (!item.done.isDone()) {
      writerLock.lock();
      try {
        if (!item.done.isDone()) {
          writer.runBatch();
        }
      } finally {
        releaseRole();
      }
    }
  }

  /** Unlocks the role, then completes what the batches under it settled (callbacks never run under the role). */
  private void releaseRole() {
    List<BatchWriter.AwaitedItem> done = writer.takeSettled();
    List<CompletableFuture<Void>> waiters = writer.takeReleasedWaiters();
    writerLock.unlock();
    CommitWatermark.completeAll(waiters);
    for (int i = 0, n = done.size(); i < n; i++) {
      BatchWriter.AwaitedItem item = done.get(i);
      if (item.error == null) {
        item.done.complete(null);
      } else {
        item.done.completeExceptionally(item.error);
      }
    }
  }

  // ---------------------------------------------------------------- host

  @Override
  public void hostWriter(LogWriterHost newHost) {
    host = newHost == null ? ownThread : newHost;
    // A wake-up the previous host took but will not run (it stopped) is not lost: scheduled is
    // still set, so the new host gets one.
    if (scheduled.get()) {
      host.wake(log);
    }
  }

  @Override
  public boolean writeQueued() {
    writerLock.lock();
    try {
      writer.runBatch();
      if (!queue.isEmpty()) {
        return true;
      }
      scheduled.set(false);
      // Whatever was queued after the batch and before the reset saw scheduled set and woke no one.
      return !queue.isEmpty() && scheduled.compareAndSet(false, true);
    } finally {
      releaseRole();
    }
  }

  // ---------------------------------------------------------------- state

  @Override
  public Lock rotationLock() {
    return writerLock;
  }

  @Override
  public Counters counters() {
    long unplaced = Math.max(0, recordsClaimed - writer.recordsPlaced());
    int unfinished;
    int lag;
    watermark.lock.lock();
    try {
      unfinished = (int) (unplaced + writer.unfinished());
      lag = (int) (unplaced + writer.lag());
    } finally {
      watermark.lock.unlock();
    }
    return new Counters(recordsClaimed, bytesClaimed, unfinished, lag, writer.forces(), writer.recordsPerForce(),
        fsync ? writer.durableEnd() : 0);
  }

  @Override
  public TransactionLogException close() {
    claimLock.lock();
    try {
      closed = true;
    } finally {
      claimLock.unlock();
    }
    writerLock.lock();
    try {
      // A clean close leaves every claimed record in the file (forced under FSYNC) and settles
      // everything queued before it.
      writer.drainAtClose();
    } finally {
      releaseRole();
    }
    ownThread.stop();
    return writer.failure();
  }

  private void checkOpen() {
    if (closed) {
      throw new LogClosedException(name);
    }
    LogFailedException f = writer.failure();
    if (f != null) {
      throw new LogFailedException(f);
    }
  }
}
