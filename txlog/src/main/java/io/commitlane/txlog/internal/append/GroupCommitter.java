package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLogException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The force (fsync) thread of an {@link Durability#FSYNC} log, after BookKeeper's journal: appends
 * only write, durability requests queue here, and one force serves every byte written before it
 * started. With a max wait above zero it waits for company after the first request, until the
 * byte or record bound is reached; with zero it forces at once and whatever is written meanwhile
 * rides the next force. Futures complete on this thread.
 */
final class GroupCommitter {

  /** Forces what was written so far and returns the position below which all of it is durable. */
  interface Forcer {
    long force() throws IOException;
  }

  private record Waiter(long position, CompletableFuture<Void> future) {}

  private final String logName;
  private final Forcer forcer;
  private final LongSupplier bytesWritten;
  private final LongSupplier recordsWritten;
  private final long maxBytes;
  private final long maxRecords;
  private final long maxWaitNanos;
  private final Thread thread;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final PriorityQueue<Waiter> waiters =
      new PriorityQueue<>((a, b) -> Long.compare(a.position, b.position));
  private long firstWaiterNanos;
  private boolean closing;
  private boolean stopped;
  private TransactionLogException failure;

  private volatile long durableEnd;
  private volatile long forces;
  private volatile long recordsForced;
  private long bytesAtLastForce;
  private long recordsAtLastForce;

  GroupCommitter(String logName, long durableEnd, Forcer forcer, LongSupplier bytesWritten,
      LongSupplier recordsWritten, LogSettings settings) {
    this.logName = logName;
    this.durableEnd = durableEnd;
    this.forcer = forcer;
    this.bytesWritten = bytesWritten;
    this.recordsWritten = recordsWritten;
    this.maxBytes = settings.groupCommitMaxBytes();
    this.maxRecords = settings.groupCommitMaxRecords();
    this.maxWaitNanos = settings.groupCommitMaxWait().toNanos();
    this.thread = new Thread(this::run, "commitlane-txlog-fsync-" + logName);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  long durableEnd() {
    return durableEnd;
  }

  long forces() {
    return forces;
  }

  long recordsForced() {
    return recordsForced;
  }

  /** The failure that stopped durability, or {@code null}. */
  TransactionLogException failure() {
    lock.lock();
    try {
      return failure;
    } finally {
      lock.unlock();
    }
  }

  CompletableFuture<Void> whenDurable(long position) {
    if (position < durableEnd) {
      return CompletableFuture.completedFuture(null);
    }
    lock.lock();
    try {
      if (position < durableEnd) {
        return CompletableFuture.completedFuture(null);
      }
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      if (stopped) {
        return CompletableFuture.failedFuture(new LogClosedException(logName));
      }
      CompletableFuture<Void> future = new CompletableFuture<>();
      if (waiters.isEmpty()) {
        firstWaiterNanos = System.nanoTime();
      }
      waiters.add(new Waiter(position, future));
      wake.signal();
      return future;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the thread after a last force that completes every pending request (or fails them with
   * the force's error). Idempotent.
   */
  void close() {
    lock.lock();
    try {
      closing = true;
      wake.signal();
    } finally {
      lock.unlock();
    }
    boolean interrupted = false;
    while (thread.isAlive() && Thread.currentThread() != thread) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    while (true) {
      boolean last;
      boolean failed;
      lock.lock();
      try {
        while (waiters.isEmpty() && !closing) {
          wake.awaitUninterruptibly();
        }
        last = closing;
        failed = failure != null;
        if (!last) {
          waitForCompany();
        }
      } finally {
        lock.unlock();
      }
      if (!failed) {
        // On close this is the final force: a clean close leaves everything written durable.
        forceOnce();
      }
      if (last) {
        lock.lock();
        try {
          stopped = true;
          failAll(failure != null ? failure : new LogClosedException(logName));
        } finally {
          lock.unlock();
        }
        return;
      }
    }
  }

  /** Holds the force back for up to max wait, unless the bounds fill first. Holds the lock. */
  private void waitForCompany() {
    if (maxWaitNanos <= 0) {
      return;
    }
    long deadline = firstWaiterNanos + maxWaitNanos;
    while (!closing
        && bytesWritten.getAsLong() - bytesAtLastForce < maxBytes
        && recordsWritten.getAsLong() - recordsAtLastForce < maxRecords) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return;
      }
      try {
        wake.awaitNanos(remaining);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void forceOnce() {
    long bytesBefore = bytesWritten.getAsLong();
    long recordsBefore = recordsWritten.getAsLong();
    long covered;
    try {
      covered = forcer.force();
    } catch (IOException | RuntimeException e) {
      LogIOException error = new LogIOException(
          "fsync of transaction log '" + logName + "' failed; the log refuses appends until it is"
              + " reopened", e);
      lock.lock();
      try {
        failure = error;
        failAll(error);
      } finally {
        lock.unlock();
      }
      return;
    }
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    lock.lock();
    try {
      forces++;
      recordsForced += recordsBefore - recordsAtLastForce;
      bytesAtLastForce = bytesBefore;
      recordsAtLastForce = recordsBefore;
      if (covered > durableEnd) {
        durableEnd = covered;
      }
      while (!waiters.isEmpty() && waiters.peek().position < durableEnd) {
        ready.add(waiters.poll().future);
      }
      if (!waiters.isEmpty()) {
        firstWaiterNanos = System.nanoTime();
      }
    } finally {
      lock.unlock();
    }
    for (CompletableFuture<Void> future : ready) {
      future.complete(null);
    }
  }

  private void failAll(TransactionLogException error) {
    while (!waiters.isEmpty()) {
      waiters.poll().future.completeExceptionally(error);
    }
  }
}
