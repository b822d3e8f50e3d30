package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.internal.segment.Frame;
import io.commitlane.txlog.internal.segment.FrameEncoder;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogFailedException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.internal.segment.Segment;
import io.commitlane.txlog.internal.segment.SegmentHeader;
import io.commitlane.txlog.internal.segment.SegmentSet;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The writer of an {@link AppendMode#ACTOR} log: what one turn does with the queue, called only by
 * the holder of the writer's role ({@link ActorAppender}), so none of its state needs a lock of
 * its own (the uncommitted set and the watermark are published under the watermark's state lock).
 *
 * <p>A batch: take what is queued, up to a buffer's worth; copy the frames into one buffer in
 * position order, creating the next segment when a position says so (forcing the full one under
 * FSYNC), and write it with one positional write; under FSYNC force once if anything in the batch
 * waits for durability; then mark aborted records, take the finished positions out of the
 * uncommitted set, move the committed watermark and only then sample RocksDB's sequence, once for
 * the batch. Every finish in the batch was queued after its RocksDB write returned and every
 * record below the new watermark finished, so the sample covers them all. What the batch settled
 * is completed by the role holder after it let go of the role ({@link #takeSettled}).
 *
 * <p>A write, force or segment creation that fails stops the log ({@link #failure()}): the batch's
 * items and everything queued after them fail with {@link LogFailedException}.
 */
final class BatchWriter {

  /** A record to write. */
  static final class RecordItem extends WriterQueue.Node {
    final ByteBuffer frame;
    long position;
    long timestamp;

    RecordItem(ByteBuffer frame) {
      this.frame = frame;
    }
  }

  /** An item someone waits for; completed after the writer lets go of its role. */
  abstract static class AwaitedItem extends WriterQueue.Node {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    /** How it failed, or {@code null}. */
    RuntimeException error;
  }

  /** An abort marker to write: for an unfinished record (abort) or a recovered one (abandon). */
  static final class MarkerItem extends AwaitedItem {
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
  static final class FinishItem extends AwaitedItem {
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

  /**
   * A record whose RocksDB write failed and whose abort marker could not be written, made dead by
   * the caller ({@link TransactionLog#markDead}): hidden and taken out of the uncommitted set,
   * with nothing written.
   */
  static final class DeadItem extends AwaitedItem {
    final long target;

    DeadItem(long target) {
      this.target = target;
    }
  }

  /** Completes once everything queued before it is written (and forced, if {@code force}). */
  static final class SyncItem extends AwaitedItem {
    final boolean force;

    SyncItem(boolean force) {
      this.force = force;
    }
  }

  private final String name;
  private final boolean fsync;
  private final SegmentSet segments;
  private final CommitWatermark watermark;
  private final AbortedPositions aborted;
  private final WriterQueue queue;
  private final ByteBuffer staging;
  private final int batchBytes;

  /** The segment being written, and the segment offset of {@code staging}'s first byte. */
  private Segment current;
  private long stagingStart;
  private final List<RecordItem> placed = new ArrayList<>();
  /** The batch's markers, finishes and syncs, in queue order. */
  private final List<AwaitedItem> effects = new ArrayList<>();
  /** Items settled, to be completed once the role is let go. */
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

  BatchWriter(String name, LogSettings settings, SegmentSet segments, CommitWatermark watermark,
      AbortedPositions aborted, WriterQueue queue, long end) {
    this.name = name;
    this.fsync = settings.durability() == Durability.FSYNC;
    this.segments = segments;
    this.watermark = watermark;
    this.aborted = aborted;
    this.queue = queue;
    this.batchBytes = (int) Math.min(settings.appendBufferBytes(), settings.maxSegmentBytes());
    this.staging = ByteBuffer.allocateDirect(batchBytes);
    this.writtenEnd = end;
    this.durableEnd = end;
    this.current = segments.active();
    if (current != null) {
      stagingStart = current.end;
    }
  }

  /** One batch: place, write, force, apply; settles its items. Never throws: a failure stops the log. */
  void runBatch() {
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
        } else if (item instanceof DeadItem d) {
          effects.add(d);
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

  /** The target is not awaiting finish: the marker (its place is claimed) names itself, which recovery ignores. */
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
        } else if (e instanceof DeadItem d) {
          aborted.add(d.target); // before the watermark can pass it, as for an abort
          uncommitted.finish(d.target);
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

  /**
   * The last batches at close: everything queued is written (forced under FSYNC, even if no one
   * waits) and settled; whatever comes later fails with {@link LogClosedException}.
   */
  void drainAtClose() {
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
  }

  /** Takes what was settled since the last call; complete it after letting go of the role. */
  List<AwaitedItem> takeSettled() {
    List<AwaitedItem> done = settled;
    if (!done.isEmpty()) {
      settled = new ArrayList<>();
    }
    return done;
  }

  /** Takes the watermark waiters released since the last call. */
  List<CompletableFuture<Void>> takeReleasedWaiters() {
    List<CompletableFuture<Void>> w = releasedWaiters;
    releasedWaiters = List.of();
    return w;
  }

  long writtenEnd() {
    return writtenEnd;
  }

  long durableEnd() {
    return durableEnd;
  }

  LogFailedException failure() {
    return failure;
  }

  long recordsPlaced() {
    return recordsPlaced;
  }

  long forces() {
    return forces;
  }

  double recordsPerForce() {
    long f = forces;
    return f == 0 ? 0 : (double) recordsForced / f;
  }

  /** Under the watermark's lock: records placed that have not finished, and those at or above the watermark. */
  int unfinished() {
    return uncommitted.unfinished();
  }

  int lag() {
    return uncommitted.size();
  }
}
