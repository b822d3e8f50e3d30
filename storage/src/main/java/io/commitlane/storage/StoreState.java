package io.commitlane.storage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where one store generation is in its life, and how many commits and reads claim it: one
 * {@code long}, phase in the top bits and the claim count below, so a claim is one CAS that sees
 * both. LIVE admits claims. A logical drop moves it to DROPPING: claims are refused from then on,
 * while the ones already held run to their end. The claim release (or the drop itself, when none
 * is held) that leaves DROPPING with no claims moves it to RECLAIMING exactly once and schedules
 * the physical drop; the physical drop moves it to DROPPED.
 */
final class StoreState {
  enum Phase { LIVE, DROPPING, RECLAIMING, DROPPED }

  private static final int SHIFT = 61;
  private static final long COUNT = (1L << SHIFT) - 1;
  private static final long PHASE = ~COUNT;
  private static final long LIVE = 0;
  private static final long DROPPING = 1L << SHIFT;
  private static final long RECLAIMING = 2L << SHIFT;
  private static final long DROPPED = 3L << SHIFT;

  private final AtomicLong state = new AtomicLong(LIVE);
  /** Completes once the physical drop is done (or failed). */
  private final CompletableFuture<Void> dropped = new CompletableFuture<>();
  /** Schedules the physical drop; set before the phase leaves LIVE, read after a release sees DROPPING. */
  private volatile Runnable reclaim;

  /** Take a claim; false unless LIVE. */
  boolean tryClaim() {
    while (true) {
      long s = state.get();
      if ((s & PHASE) != LIVE) {
        return false;
      }
      if (state.compareAndSet(s, s + 1)) {
        return true;
      }
    }
  }

  /** Give a claim back; the last one out of a dropping store schedules its physical drop. */
  void release() {
    if (state.decrementAndGet() == DROPPING) {
      reclaimOnce();
    }
  }

  /**
   * The logical drop: refuse claims from now on and run {@code reclaim} once none is held (now, if
   * none is). False if the store was not LIVE (already dropping or dropped).
   */
  boolean beginDrop(Runnable reclaim) {
    this.reclaim = reclaim;
    while (true) {
      long s = state.get();
      if ((s & PHASE) != LIVE) {
        return false;
      }
      if (state.compareAndSet(s, (s & COUNT) | DROPPING)) {
        if ((s & COUNT) == 0) {
          reclaimOnce();
        }
        return true;
      }
    }
  }

  private void reclaimOnce() {
    // Only one of the racing releases (or the drop) wins this CAS: the physical drop runs once.
    if (state.compareAndSet(DROPPING, RECLAIMING)) {
      reclaim.run();
    }
  }

  /** The physical drop is done: the handle is closed and must never be used again. */
  void markDropped() {
    state.set(DROPPED);
  }

  Phase phase() {
    return Phase.values()[(int) ((state.get() & PHASE) >>> SHIFT)];
  }

  boolean isLive() {
    return (state.get() & PHASE) == LIVE;
  }

  /** True until the physical drop started: the handle may still be used by a claim holder. */
  boolean isWritable() {
    long p = state.get() & PHASE;
    return p == LIVE || p == DROPPING;
  }

  long claims() {
    return state.get() & COUNT;
  }

  CompletableFuture<Void> dropped() {
    return dropped;
  }
}
