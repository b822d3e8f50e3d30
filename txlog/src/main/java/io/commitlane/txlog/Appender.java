package io.commitlane.txlog;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * How records get into a log's segments and how their completion moves the committed watermark:
 * one implementation per {@link AppendMode}. {@link TransactionLog} checks arguments, owns the
 * segments, the watermark, the aborted positions and the flushed position, and delegates here
 * whatever depends on the mode. Each method's contract is the {@link TransactionLog} method of
 * the same name.
 */
interface Appender {

  /** Counters for {@link TransactionLog#stats()}. */
  record Counters(long records, long bytes, int unfinished, int lag, long fsyncs, double recordsPerFsync,
      long durablePosition) {}

  /**
   * Claims the record's place and timestamp (from {@code clock} inside the claim, if given, else
   * {@code timestamp}) and writes or queues its frame.
   */
  TransactionLog.Appended append(long transactionId, long timestamp, MonotonicClock clock, int flags,
      List<ByteBuffer> entries, ByteBuffer writes, long payloadSize);

  long finish(long position, LongSupplier sequenceSampler);

  CompletableFuture<Void> finishAsync(long position, LongSupplier sequenceSampler);

  void abort(long position);

  /** Writes an abort marker for each recovered position (already checked) and marks it aborted. */
  void abandon(List<Long> positions);

  /**
   * Runs the flush-correlation step of {@link TransactionLog#onFlushCompleted} (it answers the
   * prefix to persist, or -1) in the order this appender needs: at once, unless an appender has a
   * writer whose batches the step must not split.
   */
  default long inFlushOrder(LongSupplier step) {
    return step.getAsLong();
  }

  CompletableFuture<Void> whenDurable(long position);

  /** The end of what a reader of uncommitted records may read: everything appended below it is in the file. */
  long readableEnd();

  /** Held by purge while it picks segments, so no rotation runs meanwhile. */
  Lock rotationLock();

  Counters counters();

  /** ACTOR mode: runs the writer on {@code host} ({@code null}: the log's own thread); others ignore it. */
  default void hostWriter(LogWriterHost host) {}

  /** ACTOR mode: one writer turn; see {@link TransactionLog#writeQueued()}. */
  default boolean writeQueued() {
    return false;
  }

  /**
   * Refuses appends from now on and makes what was appended as durable as the mode promises at a
   * clean close; returns the failure that kept something from being durable, or {@code null}.
   */
  TransactionLogException close();

  /**
   * What {@link #whenDurable} answers for an appender that forces through {@code committer} (null
   * when the durability needs no fsync): a position at or past {@code appendedEnd} was never
   * appended.
   */
  static CompletableFuture<Void> durableThrough(GroupCommitter committer, long position, long appendedEnd, String logName) {
    if (committer == null) {
      return CompletableFuture.completedFuture(null);
    }
    if (position >= appendedEnd) {
      throw new IllegalArgumentException("position " + LogPosition.toString(position)
          + " was not appended to transaction log '" + logName + "'");
    }
    return committer.whenDurable(position);
  }
}
