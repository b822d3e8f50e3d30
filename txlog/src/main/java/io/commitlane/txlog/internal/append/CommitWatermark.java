package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.TransactionLog;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A log's committed watermark and what hangs off it: the futures of readers waiting for it to
 * move, and the (committed prefix, RocksDB sequence) pairs of flush correlation. It only moves
 * forward. One state lock guards the waiters and the pairs (and whatever uncommitted-position
 * bookkeeping the append mode keeps with them); the watermark itself is a volatile read.
 *
 * <p>The flush-correlation rule every append mode keeps: a pair is recorded with a sequence
 * sampled after every record below its prefix returned from its RocksDB write (its position
 * left the uncommitted set first), so a flush at that sequence holds all of them.
 */
public final class CommitWatermark {
  /** Guards the waiters, the pairs and the append mode's uncommitted set. */
  final ReentrantLock lock = new ReentrantLock();
  private final WatermarkWaiters waiters = new WatermarkWaiters();
  private final FlushCorrelation correlation = new FlushCorrelation();
  private volatile long position;

  public CommitWatermark(long start) {
    this.position = start;
  }

  /** Every record below it has finished or aborted; the record at it (if any) has not. */
  public long get() {
    return position;
  }

  /** Under the lock: publishes {@code to} if it is further; returns the waiters it releases. */
  List<CompletableFuture<Void>> advanceTo(long to) {
    if (to <= position) {
      return List.of();
    }
    position = to;
    return waiters.isEmpty() ? List.of() : waiters.takeBelow(to);
  }

  /** Under the lock: records that every record below {@code prefix} is in RocksDB at {@code sequence}. */
  void pair(long prefix, long sequence) {
    correlation.record(prefix, sequence);
  }

  /** The largest prefix a flush at {@code flushedSequence} holds (-1 if none); forgets those pairs. Takes the lock. */
  public long takeFlushed(long flushedSequence) {
    lock.lock();
    try {
      return correlation.takeFlushed(flushedSequence);
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@link TransactionLog#whenCommittedBeyond}: a future completing when the watermark passes
   * {@code position}, failed with {@link LogClosedException} if {@code log} is closed. Takes the
   * lock; {@code log}'s closed flag is read under it, so close, which sets that flag before it
   * {@linkplain #failWaiters fails the waiters}, never leaves one behind.
   */
  public CompletableFuture<Void> whenBeyond(long position, LogView log) {
    if (this.position > position) {
      return CompletableFuture.completedFuture(null);
    }
    lock.lock();
    try {
      if (log.isClosed()) {
        return CompletableFuture.failedFuture(new LogClosedException(log.name()));
      }
      if (this.position > position) {
        return CompletableFuture.completedFuture(null);
      }
      return waiters.add(position);
    } finally {
      lock.unlock();
    }
  }

  /** Fails every waiting future with {@code error}; for close. Takes the lock. */
  public void failWaiters(RuntimeException error) {
    List<CompletableFuture<Void>> waiting;
    lock.lock();
    try {
      waiting = waiters.takeAll();
    } finally {
      lock.unlock();
    }
    waiting.forEach(f -> f.completeExceptionally(error));
  }

  /** The recorded pairs not yet taken by a flush, oldest first. */
  public long[][] pairs() {
    lock.lock();
    try {
      return correlation.pairs();
    } finally {
      lock.unlock();
    }
  }

  /** Completes released waiters; call after unlocking. */
  static void completeAll(List<CompletableFuture<Void>> futures) {
    for (int i = 0, n = futures.size(); i < n; i++) {
      futures.get(i).complete(null);
    }
  }
}
