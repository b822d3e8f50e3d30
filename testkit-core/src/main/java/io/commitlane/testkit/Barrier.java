package io.commitlane.testkit;

import io.commitlane.testkit.internal.stage.ExecutorHolds;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Holds every matching commit at one stage until {@link #release()}. Until then the committing
 * thread waits inside the stage (at {@code VALIDATED} and {@code LOG_APPENDED} it still holds its
 * locks). Released barriers let every later arrival pass too.
 */
public final class Barrier {
  private final CommitStage stage;
  private final Predicate<PendingCommit> which;
  private final String description;
  private final ExecutorHolds executors;
  private int arrivals;
  private int waiting;
  private volatile boolean released; // volatile: ExecutorHolds reads it without this monitor
  private PendingCommit last;

  Barrier(CommitStage stage, Predicate<PendingCommit> which, String description, ExecutorHolds executors) {
    this.stage = stage;
    this.which = which;
    this.description = description;
    this.executors = executors;
  }

  boolean matches(CommitStage s, PendingCommit c) {
    return s == stage && which.test(c);
  }

  /** Called on the committing thread. */
  void hold(PendingCommit c, Duration maxHold) {
    long deadline = System.nanoTime() + maxHold.toNanos();
    // Registered outside this monitor: ExecutorHolds wakes other monitors' waiters.
    boolean onExecutor = !released && executors.enter(c + " is held at " + stage + " by " + this, () -> !released);
    try {
      holdHere(c, deadline, maxHold);
    } finally {
      if (onExecutor) {
        executors.exit();
      }
    }
  }

  private void holdHere(PendingCommit c, long deadline, Duration maxHold) {
    synchronized (this) {
      arrivals++;
      waiting++;
      last = c;
      notifyAll();
      try {
        while (!released) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new StageTimeoutException(c + " was held at " + stage + " by " + this + " for " + maxHold
                + " and never released; release the barrier or close the StageControl");
          }
          TimeUnit.NANOSECONDS.timedWait(this, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(c + " was interrupted while held at " + stage, e);
      } finally {
        waiting--;
      }
    }
  }

  /** Wait until a matching commit is held here (or has passed, once released); returns it. */
  public PendingCommit awaitArrival(Duration timeout) {
    return awaitArrivals(1, timeout);
  }

  /** Wait until {@code n} matching commits arrived in all; returns the last. */
  public synchronized PendingCommit awaitArrivals(int n, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (arrivals < n) {
        String stuck = stage == CommitStage.ADMITTED || !executors.anyQueued() ? null
            : executors.noFreeExecutor("waiting for " + n + " commit(s) at " + this + " (" + arrivals + " arrived)");
        if (stuck != null) {
          throw new NoFreeExecutorException(stuck);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new StageTimeoutException("timed out after " + timeout + " waiting for " + n + " commit(s) at " + this
              + "; " + arrivals + " arrived");
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return last;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting at " + this, e);
    }
  }

  /** Let every held and every later matching commit pass. */
  public synchronized void release() {
    released = true;
    notifyAll();
  }

  /** A hold started or ended somewhere: re-check whether a waiter can still be satisfied. */
  synchronized void wake() {
    notifyAll();
  }

  public synchronized int arrivals() {
    return arrivals;
  }

  /** Commits held here right now. */
  public synchronized int holding() {
    return waiting;
  }

  public CommitStage stage() {
    return stage;
  }

  @Override
  public String toString() {
    return "barrier at " + stage + " for " + description;
  }
}
