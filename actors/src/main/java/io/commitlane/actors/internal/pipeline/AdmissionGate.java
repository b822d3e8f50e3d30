package io.commitlane.actors.internal.pipeline;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts commits admitted and not yet completed, and closes: after {@link #close()} nothing more
 * is admitted, and the returned future completes once the last admitted commit completed. That
 * is how close drains before it releases the database.
 */
public final class AdmissionGate {
  private static final long CLOSED = 1L << 62;
  private final AtomicLong state = new AtomicLong();
  private final CompletableFuture<Void> drained = new CompletableFuture<>();

  /**
   * One atomic add, never a retry loop (callers on many threads admit at once): a refused
   * admission counts itself in and straight out again, which may complete {@link #close()}'s
   * future itself if it was the last one counted.
   */
  boolean tryAdmit() {
    if ((state.getAndIncrement() & CLOSED) != 0) {
      completed();
      return false;
    }
    return true;
  }

  void completed() {
    if (state.decrementAndGet() == CLOSED) {
      drained.complete(null);
    }
  }

  long inFlight() {
    return state.get() & ~CLOSED;
  }

  boolean isClosed() {
    return (state.get() & CLOSED) != 0;
  }

  /** Close (idempotent); the future completes when nothing admitted is in flight. */
  public CompletableFuture<Void> close() {
    long s;
    do {
      s = state.get();
      if ((s & CLOSED) != 0) {
        return drained;
      }
    } while (!state.compareAndSet(s, s | CLOSED));
    if (s == 0) {
      drained.complete(null);
    }
    return drained;
  }
}
