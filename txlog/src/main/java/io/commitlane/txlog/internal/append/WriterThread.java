package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.TransactionLog;
import java.util.concurrent.locks.LockSupport;

/**
 * The host an {@link AppendMode#ACTOR} log uses when it has no other: one dedicated daemon thread,
 * {@code commitlane-txlog-writer-<name>}, started at the first wake-up, parked while the writer
 * has nothing to do. A wake-up before the thread parks is not lost (it leaves a permit).
 */
final class WriterThread implements LogWriterHost {
  private final String threadName;
  private volatile Thread thread;
  private volatile TransactionLog log;
  private volatile boolean pending;
  private volatile boolean stopping;

  WriterThread(String logName) {
    this.threadName = "commitlane-txlog-writer-" + logName;
  }

  @Override
  public void wake(TransactionLog log) {
    this.log = log;
    pending = true;
    LockSupport.unpark(started());
  }

  private Thread started() {
    Thread t = thread;
    return t != null ? t : start();
  }

  private synchronized Thread start() {
    if (thread == null) {
      Thread t = new Thread(this::run, threadName);
      t.setDaemon(true);
      t.start();
      thread = t;
    }
    return thread;
  }

  private void run() {
    while (!stopping) {
      if (pending) {
        pending = false;
        while (log.writeQueued() && !stopping) {
          // one batch per turn; more is queued
        }
      } else {
        LockSupport.park(this);
      }
    }
  }

  /** Stops the thread (after the turn it is in, if any) and waits for it. */
  void stop() {
    Thread t;
    synchronized (this) {
      stopping = true;
      t = thread;
    }
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    LockSupport.unpark(t);
    boolean interrupted = false;
    while (t.isAlive()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
