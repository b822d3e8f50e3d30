package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.MonotonicClock;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * How records get into a log's segments and how their completion moves the committed watermark:
 * one implementation per {@link AppendMode}. {@link TransactionLog} checks arguments, owns the
 * segments, the watermark, the aborted positions and the flushed position, and delegates here
 * whatever depends on the mode. Each method's contract is the {@link TransactionLog} method of
 * the same name.
 */
public interface Appender {

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

  /** For an appender whose {@link #finish} has the record in the file when it returns: finishes, then {@link #whenDurable}. */
  default CompletableFuture<Void> finishAsync(long position, LongSupplier sequenceSampler) {
    finish(position, sequenceSampler);
    return whenDurable(position);
  }

  void abort(long position);

  /**
   * {@link TransactionLog#markDead}: hides the record from readers (it joins {@code aborted}, under
   * the watermark's lock) and, if the log still runs, takes it out of the uncommitted set so the
   * watermark can pass it. Writes no marker.
   */
  void markDead(long position, AbortedPositions aborted);

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
   * Waits for a {@link #whenDurable} future; a log's failure is thrown as itself, not wrapped.
   *
   * @throws TransactionLogException the error the future failed with
   */
  static void await(CompletableFuture<Void> durable) {
    try {
      durable.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof TransactionLogException t) {
        throw t;
      }
      throw e;
    }
  }
}
