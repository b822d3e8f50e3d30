package io.commitlane.storage.internal.rocks;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets native calls run until the gate closes, then waits for the ones in flight, so a RocksDB
 * handle is never freed under a running call. One CAS to enter, one to leave.
 */
public final class LifecycleGate {
  private static final int CLOSED = Integer.MIN_VALUE;

  /** Calls in flight; {@link #CLOSED} is added once the gate closes. */
  private final AtomicInteger state = new AtomicInteger();
  private volatile Thread closer;

  /** Enter, or return false when the gate is closed. Every true must be paired with {@link #exit}. */
  public boolean tryEnter() {
    while (true) {
      int s = state.get();
      if (s < 0) {
        return false;
      }
      if (state.compareAndSet(s, s + 1)) {
        return true;
      }
    }
  }

  public void exit() {
    if (state.decrementAndGet() == CLOSED) {
      Thread t = closer;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  public boolean isClosed() {
    return state.get() < 0;
  }

  /** Close (idempotent) and wait until no call is in flight. Returns false if already closed. */
  public boolean closeAndAwait() {
    int s;
    do {
      s = state.get();
      if (s < 0) {
        return false;
      }
    } while (!state.compareAndSet(s, s + CLOSED));
    closer = Thread.currentThread();
    boolean interrupted = false;
    while (state.get() != CLOSED) {
      LockSupport.park(this);
      interrupted |= Thread.interrupted();
    }
    closer = null;
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return true;
  }
}
