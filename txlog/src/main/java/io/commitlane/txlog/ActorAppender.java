package io.commitlane.txlog;

import java.io.IOException;
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
 * LogWriterHost}): take everything queued, up to a buffer's worth; copy the frames into one buffer
 * in position order (creating the next segment when the position says so, forcing the full one
 * under FSYNC) and write it with one positional write; under FSYNC force once if anything in the
 * batch waits for durability; then, under the watermark's state lock, mark aborted records, take
 * the finished positions out of the uncommitted set, move the committed watermark and only then
 * sample RocksDB's sequence once for the batch, and complete what the batch made durable. Every
 * finish in the batch was queued after its RocksDB write returned, and every record below the new
 * watermark finished, so the sample covers them all: sampling after removal holds by queue order.
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
final class ActorAppender implements Appender {

  /** A record to write. */
  private static final class RecordItem extends WriterQueue.Node {
    final ByteBuffer frame;
    long position;
    long timestamp;

    RecordItem(ByteBuffer frame) {
      this.frame = frame;
    }
  }

  /** An item someone waits for; completed after the writer lets go of its role. */
  private abstract static class AwaitedItem extends WriterQueue.Node {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    /** How it failed, or {@code null}. */
    RuntimeException error;
  }

  /** An abort marker to write: for an unfinished record (abort) or a recovered one (abandon). */
  private static final class MarkerItem extends AwaitedItem {
    ByteBuffer frame;
    final long target;
    final boolean finishesTarget;
    long position;
    /** Set when the target was not awaiting finish: the marker then names itself, which recovery ignores. */
    boolean refused;

    MarkerItem(ByteBuffer frame, long target, boolean finishesTarget) {
      this.frame = frame;
      this.target = target;
      this.finishesTarget = finishesTarget;
    }
  }

  /** The caller's RocksDB write for a record returned. */
  private static final class FinishItem extends AwaitedItem {
    final long position;
    final LongSupplier sampler;
    /** Whether its completion waits for an fsync (an acknowledgement under FSYNC). */
    final boolean durable;
    long watermarkAfter;

    FinishItem(long position, LongSupplier sampler, boolean durable) {
      this.position = position;
      this.sampler = sampler;
      this.durable = durable;
    }
  }

  /** Completes once everything queued before it is written (and forced, if {@code force}). */
  private static final class SyncItem extends AwaitedItem {
    final boolean force;

    SyncItem(boolean force) {
      this.force = force;
    }
  }

  private final String name;
  private final TransactionLog log;
  private final Clock clock;
  private final boolean fsync;
  private final SegmentSet segments;
  private final CommitWatermark watermark;
  private final AbortedPositions aborted;

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

  // Writer side, guarded by writerLock (the role).
  private final ReentrantLock writerLock = new ReentrantLock();
  private final ByteBuffer staging;
  private final int batchBytes;
  /** The segment being written, and the segment offset of {@code staging}'s first byte. */
  private Segment current;
  private long stagingStart;
  private final List<RecordItem> placed = new ArrayList<>();
  /** The batch's markers, finishes and syncs, in queue order. */
  private List<AwaitedItem> effects = new ArrayList<>();
  /** Items settled under the role, completed by the role holder after it let go. */
  private List<AwaitedItem> settled = new ArrayList<>();
  private List<CompletableFuture<Void>> releasedWaiters = List.of();
  private boolean drained;
  private long recordsAtLastForce;

  // Guarded by watermark.lock.
  private final UncommittedPositions uncommitted = new UncommittedPositions();

  /** Everything below it is in the file (not necessarily forced). */
  private volatile long writtenEnd;
  /** Everything below it is forced (FSYNC). */
  private volatile long durableEnd;
  private volatile long recordsPlaced;
  private volatile long forces;
  private volatile long recordsForced;
  private volatile LogFailedException failure;

  ActorAppender(TransactionLog log, String name, LogSettings settings, SegmentSet segments, CommitWatermark watermark,
      AbortedPositions aborted, long end) {
    this.log = log;
    this.name = name;
    this.clock = settings.clock();
    this.fsync = settings.durability() == Durability.FSYNC;
    this.segments = segments;
    this.watermark = watermark;
    this.aborted = aborted;
    this.batchBytes = (int) Math.min(settings.appendBufferBytes(), settings.maxSegmentBytes());
    this.staging = ByteBuffer.allocateDirect(batchBytes);
    this.writtenEnd = end;
    this.durableEnd = end;
    this.claimedEnd = end;
    this.ownThread = new WriterThread(name);
    this.host = ownThread;
    Segment active = segments.active();
    this.current = active;
    this.nextSegment = segments.nextNumber();
    if (active != null) {
      claimSegment = active.number;
      claimOffset = active.end;
      claimSegmentCreated = active.createdMillis;
      stagingStart = active.end;
    } else {
      claimSegment = -1;
    }
  }

  // ---------------------------------------------------------------- callers

  @Override
  public TransactionLog.Appended append(long transactionId, long timestamp, MonotonicClock clock, int flags,
      List<ByteBuffer> entries, ByteBuffer writes, long payloadSize) {
    RecordItem item = new RecordItem(FrameEncoder.get().ownedRecord(transactionId, timestamp, flags, entries, writes,
        payloadSize));
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
    FinishItem item = new FinishItem(position, sequenceSampler, fsync);
    LogFailedException f = failure;
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
    FinishItem item = new FinishItem(position, sequenceSampler, false);
    queue.offer(item);
    runUntilDone(item);
    return item.watermarkAfter;
  }

  @Override
  public void abort(long position) {
    checkNotWriter();
    runUntilDone(claimMarker(position, true));
  }

  @Override
  public void abandon(List<Long> positions) {
    checkNotWriter();
    List<MarkerItem> markers = new ArrayList<>(positions.size());
    for (long position : positions) {
      markers.add(claimMarker(position, false));
    }
    for (MarkerItem m : markers) {
      runUntilDone(m);
    }
  }

  private MarkerItem claimMarker(long target, boolean finishesTarget) {
    MarkerItem item = new MarkerItem(FrameEncoder.get().ownedAbort(clock.millis(), target), target, finishesTarget);
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
    if (position < durableEnd) {
      return CompletableFuture.completedFuture(null);
    }
    LogFailedException f = failure;
    if (f != null) {
      return CompletableFuture.failedFuture(new LogFailedException(f));
    }
    if (closed) {
      return CompletableFuture.failedFuture(new LogClosedException(name));
    }
    SyncItem item = new SyncItem(true);
    submit(item);
    return item.done;
  }

  /** Everything claimed so far is written first (no fsync), so such a reader sees every append. */
  @Override
  public long readableEnd() {
    if (writtenEnd >= claimedEnd || failure != null || closed) {
      return writtenEnd;
    }
    checkNotWriter();
    SyncItem item = new SyncItem(false);
    queue.offer(item);
    runUntilDone(item);
    return writtenEnd;
  }

  @Override
  public long takeFlushed(long flushedSequence) {
    // In the writer's order: a flush event is handled between batches, never inside one.
    writerLock.lock();
    try {
      watermark.lock.lock();
      try {
        return watermark.takeFlushed(flushedSequence);
      } finally {
        watermark.lock.unlock();
      }
    } finally {
      writerLock.unlock();
    }
  }

  /** Queues {@code item} and makes sure a turn will take it. */
  private void submit(AwaitedItem item) {
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
  private void runUntilDone(AwaitedItem item) {
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

  private void settle(AwaitedItem item) {
    while (!item.done.isDone()) {
      writerLock.lock();
      try {
        if (!item.done.isDone()) {
          runBatch();
        }
      } finally {
        releaseRole();
      }
    }
  }

  /** Unlocks the role, then completes what the batches under it settled (callbacks never run under the role). */
  private void releaseRole() {
    List<AwaitedItem> done = settled;
    List<CompletableFuture<Void>> waiters = releasedWaiters;
    boolean any = !done.isEmpty() || !waiters.isEmpty();
    if (any) {
      settled = new ArrayList<>();
      releasedWaiters = List.of();
    }
    writerLock.unlock();
    if (any) {
      CommitWatermark.completeAll(waiters);
      for (int i = 0, n = done.size(); i < n; i++) {
        AwaitedItem item = done.get(i);
        if (item.error == null) {
          item.done.complete(null);
        } else {
          item.done.completeExceptionally(item.error);
        }
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
      runBatch();
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

  // ---------------------------------------------------------------- the writer (role holder)

  /** One batch: place, write, force, apply; settles its items. Never throws: a failure stops the log. */
  private void runBatch() {
    if (drained || failure != null) {
      failQueued(failure != null ? new LogFailedException(failure) : new LogClosedException(name));
      return;
    }
    boolean forceWanted = false;
    try {
      int bytes = 0;
      WriterQueue.Node item;
      while (bytes < batchBytes && (item = queue.poll()) != null) {
        if (item instanceof RecordItem r) {
          place(r.frame, r.position, r.timestamp);
          current.noteRecord(r.timestamp);
          placed.add(r);
          bytes += r.frame.remaining();
        } else if (item instanceof MarkerItem m) {
          if (m.finishesTarget && !awaitingFinish(m.target)) {
            refuse(m);
          }
          place(m.frame, m.position, Frame.timestamp(m.frame, 0));
          effects.add(m);
          forceWanted |= fsync;
          bytes += m.frame.remaining();
        } else if (item instanceof FinishItem f) {
          effects.add(f);
          forceWanted |= f.durable;
        } else {
          SyncItem s = (SyncItem) item;
          effects.add(s);
          forceWanted |= s.force;
        }
      }
      writeStaging();
      long end = current == null ? writtenEnd : LogPosition.of(current.number, stagingStart);
      watermark.lock.lock();
      try {
        for (int i = 0, n = placed.size(); i < n; i++) {
          uncommitted.add(placed.get(i).position);
        }
        writtenEnd = end;
      } finally {
        watermark.lock.unlock();
      }
      recordsPlaced += placed.size();
      placed.clear();
      if (forceWanted && durableEnd < writtenEnd) {
        force("an fsync");
      }
    } catch (LogFailedException e) {
      failStop(e);
      return;
    } catch (IOException | RuntimeException e) {
      failStop(new LogFailedException(name, "a batch write", e));
      return;
    }
    apply();
  }

  /** Copies a frame into the batch buffer at its claimed position (switching segments first if it says so). */
  private void place(ByteBuffer frame, long position, long timestamp) throws IOException {
    long number = LogPosition.segment(position);
    long offset = LogPosition.offset(position);
    int length = frame.remaining();
    if (current == null || current.number != number) {
      writeStaging();
      switchTo(number);
    }
    if (stagingStart + staging.position() != offset) {
      throw new IllegalStateException("a frame claimed at " + LogPosition.toString(position)
          + " reached the writer out of order");
    }
    if (Frame.timestamp(frame, 0) != timestamp) {
      FrameEncoder.get().restamp(frame, timestamp);
    }
    if (length > staging.remaining()) {
      writeStaging();
    }
    if (length > staging.capacity()) {
      current.file().write(frame.duplicate(), offset);
      stagingStart = offset + length;
      current.end = stagingStart;
      return;
    }
    staging.put(frame.duplicate());
  }

  private void writeStaging() throws IOException {
    int n = staging.position();
    if (n == 0) {
      return;
    }
    staging.flip();
    try {
      current.file().write(staging, stagingStart);
    } finally {
      staging.clear();
    }
    stagingStart += n;
    current.end = stagingStart;
  }

  /** Seals the segment being written (forced first under FSYNC) and creates segment {@code number}. */
  private void switchTo(long number) throws IOException {
    Segment previous = current;
    if (previous != null && fsync) {
      force("the fsync of a full segment at a switch");
    }
    if (segments.nextNumber() != number) {
      throw new IllegalStateException("segment " + number + " was claimed but segment " + segments.nextNumber()
          + " is the next to create");
    }
    Segment next;
    try {
      next = segments.create(previous != null && previous.number == number - 1
          ? (int) previous.end : SegmentHeader.NO_PREDECESSOR);
    } catch (IOException e) {
      throw new LogFailedException(name, "creating segment " + Segment.fileName(number), e);
    }
    if (previous != null) {
      previous.sealed = true;
    }
    segments.activate(next);
    current = next;
    stagingStart = SegmentHeader.BYTES;
  }

  private void force(String what) throws LogFailedException {
    long target = LogPosition.of(current.number, current.end);
    try {
      current.force();
    } catch (IOException e) {
      throw new LogFailedException(name, what, e);
    }
    long records = recordsPlaced;
    forces++;
    recordsForced += records - recordsAtLastForce;
    recordsAtLastForce = records;
    durableEnd = Math.max(durableEnd, target);
  }

  /** Whether {@code position} is an appended record that has neither finished nor aborted yet. */
  private boolean awaitingFinish(long position) {
    boolean appended = uncommitted.contains(position);
    for (int i = placed.size() - 1; !appended && i >= 0; i--) {
      appended = placed.get(i).position == position;
    }
    if (!appended) {
      return false;
    }
    for (AwaitedItem e : effects) {
      if (e instanceof FinishItem f && f.position == position
          || e instanceof MarkerItem m && m.finishesTarget && !m.refused && m.target == position) {
        return false; // finished or aborted earlier in this batch
      }
    }
    return true;
  }

  /** The target is not awaiting finish: the marker (its place is claimed) names itself instead, which recovery ignores. */
  private void refuse(MarkerItem m) {
    m.refused = true;
    m.frame = FrameEncoder.get().ownedAbort(Frame.timestamp(m.frame, 0), m.position);
    m.error = notAwaitingFinish(m.target);
  }

  /** After the batch is written (and forced): the effects on the watermark, in queue order; then settle. */
  private void apply() {
    long committed;
    watermark.lock.lock();
    try {
      long before = watermark.get();
      LongSupplier sampler = null;
      for (int i = 0, n = effects.size(); i < n; i++) {
        AwaitedItem e = effects.get(i);
        if (e instanceof MarkerItem m && !m.refused) {
          // Marked aborted before the watermark can pass it, so no reader ever returns it.
          aborted.add(m.target);
          if (m.finishesTarget) {
            uncommitted.finish(m.target);
          }
        } else if (e instanceof FinishItem f) {
          if (uncommitted.finish(f.position)) {
            sampler = f.sampler;
          } else {
            f.error = notAwaitingFinish(f.position);
          }
        }
      }
      List<CompletableFuture<Void>> released = watermark.advanceTo(uncommitted.watermark(writtenEnd));
      committed = watermark.get();
      if (sampler != null) {
        // Once per batch, after every finish in it left the uncommitted set.
        long sequence = sampler.getAsLong();
        if (committed > before) {
          watermark.pair(committed, sequence);
        }
      }
      if (!released.isEmpty()) {
        releasedWaiters = releasedWaiters.isEmpty() ? released : concat(releasedWaiters, released);
      }
    } finally {
      watermark.lock.unlock();
    }
    for (int i = 0, n = effects.size(); i < n; i++) {
      if (effects.get(i) instanceof FinishItem f) {
        f.watermarkAfter = committed;
      }
    }
    settled.addAll(effects);
    effects.clear();
  }

  private IllegalStateException notAwaitingFinish(long position) {
    return new IllegalStateException("position " + LogPosition.toString(position)
        + " is not awaiting finish in transaction log '" + name
        + "': it was never appended, or it already finished or aborted");
  }

  private void failStop(LogFailedException f) {
    failure = f;
    for (AwaitedItem e : effects) {
      e.error = new LogFailedException(f);
    }
    settled.addAll(effects);
    effects.clear();
    placed.clear();
    failQueued(new LogFailedException(f));
  }

  private void failQueued(TransactionLogException error) {
    WriterQueue.Node item;
    while ((item = queue.poll()) != null) {
      if (item instanceof AwaitedItem a) {
        a.error = error;
        settled.add(a);
      }
    }
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  // ---------------------------------------------------------------- state

  @Override
  public Lock rotationLock() {
    return writerLock;
  }

  @Override
  public Counters counters() {
    long unplaced = Math.max(0, recordsClaimed - recordsPlaced);
    int unfinished;
    int lag;
    watermark.lock.lock();
    try {
      unfinished = (int) (unplaced + uncommitted.unfinished());
      lag = (int) (unplaced + uncommitted.size());
    } finally {
      watermark.lock.unlock();
    }
    long f = forces;
    return new Counters(recordsClaimed, bytesClaimed, unfinished, lag, f, f == 0 ? 0 : (double) recordsForced / f,
        fsync ? durableEnd : 0);
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
      while (!queue.isEmpty() && failure == null) {
        runBatch();
      }
      if (failure == null && fsync && current != null && durableEnd < writtenEnd) {
        try {
          force("the final fsync at close");
        } catch (LogFailedException e) {
          failStop(e);
        }
      }
      drained = true;
      failQueued(failure != null ? new LogFailedException(failure) : new LogClosedException(name));
    } finally {
      releaseRole();
    }
    ownThread.stop();
    return failure;
  }

  private void checkOpen() {
    if (closed) {
      throw new LogClosedException(name);
    }
    LogFailedException f = failure;
    if (f != null) {
      throw new LogFailedException(f);
    }
  }
}
