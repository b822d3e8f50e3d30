package io.commitlane.actors.internal.pipeline;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How one commit executor waits for work, and how an admission wakes it. A warm executor is woken
 * without a mailbox round trip: it spins briefly, then parks on its own thread, and only after
 * {@link #PARK_LIMIT} of idleness returns to its mailbox (where stop and restart reach it).
 *
 * <p>Invariant: the executor is idle (an admission may claim it) exactly while its state is
 * {@code SPINNING}, {@code PARKED} or {@code DORMANT}. Only the executor makes itself idle, and
 * only from {@code RUNNING} or {@code CLAIMED}. A claim is a compare-and-set from an idle state
 * to {@code CLAIMED}, so each idle period ends at most once by a claim, and the claimer alone
 * does what that state needs (nothing for a spinner, an unpark for a parked thread, a {@code
 * Wake} message for a dormant actor). A claimed executor is on its way to the queue: it becomes
 * {@code RUNNING} when it takes a commit, or idle again if the commit was taken already (a claim
 * can come late, after the executor took the commit itself). A wake-up is never lost: the
 * executor becomes idle before it looks at the queue once more, and an admission looks for an
 * idle executor after its commit is queued, so one of the two sees the other.
 */
final class ExecutorSignal {
  static final int RUNNING = 0;
  static final int SPINNING = 1;
  static final int PARKED = 2;
  static final int DORMANT = 3;
  static final int CLAIMED = 4;

  /**
   * How long an executor stays parked on its thread before it returns to its mailbox. Bounds how
   * long a stop waits for an idle executor that nobody dismissed; a later commit then pays a
   * mailbox wake-up instead of an unpark.
   */
  static final long PARK_LIMIT = TimeUnit.MILLISECONDS.toNanos(50);
  /** Spin iterations between yields: a spinning executor lets other runnable threads of its core in. */
  private static final int YIELD_EVERY = 64;

  private final AtomicInteger state = new AtomicInteger(RUNNING);
  /** Until when the unit of work this executor runs counts as brief; its start for a unit that is not. */
  private volatile long briefUntil;
  private final Runnable tellWake;
  private final String name;
  private final long spinNanos;
  private volatile Thread thread;
  /** Executor thread only: when the current idle period began, and how long the previous one lasted. */
  private long idleSince;
  private long lastIdleNanos;
  private long spinUntil;
  private long parkUntil;
  private int spins;

  /**
   * @param tellWake sends the executor actor its {@code Wake} message (for a dormant executor)
   * @param spinNanos how long an executor spins before it parks, while commits keep arriving; 0 never spins
   */
  ExecutorSignal(String name, long spinNanos, Runnable tellWake) {
    this.name = name;
    this.spinNanos = spinNanos;
    this.tellWake = tellWake;
    this.briefUntil = System.nanoTime(); // no unit yet: nothing brief to wait for
  }

  /** The executor's thread (its pinned dispatcher gives it one for its whole life). */
  void bind(Thread t) {
    thread = t;
  }

  int state() {
    return state.get();
  }

  boolean isIdle() {
    int s = state.get();
    return s == SPINNING || s == PARKED || s == DORMANT;
  }

  /**
   * Running a brief unit of work that started less than {@link BriefWork#WINDOW_NANOS} before {@code now}:
   * it will take what is queued when the unit ends, sooner than another executor could be woken.
   */
  boolean takesQueueSoon(long now) {
    return state.get() == RUNNING && briefUntil - now > 0;
  }

  /** Claimed by an admission and not yet back at the queue: it will take what is queued. */
  boolean isClaimed() {
    return state.get() == CLAIMED;
  }

  /**
   * By an admission (or an executor with more queued than it takes): end this executor's idle
   * period. False if it was not idle (running, or claimed by someone else first).
   */
  boolean claim() {
    while (true) {
      int s = state.get();
      if (s != SPINNING && s != PARKED && s != DORMANT) {
        return false;
      }
      if (state.compareAndSet(s, CLAIMED)) {
        if (s == PARKED) {
          LockSupport.unpark(thread);
        } else if (s == DORMANT) {
          tellWake.run();
        }
        return true;
      }
    }
  }

  /** {@link #claim()}, only if this executor is spinning (its claim costs no wake-up). */
  boolean claimSpinning() {
    return state.get() == SPINNING && state.compareAndSet(SPINNING, CLAIMED);
  }

  /** After close drained the queue: an idle executor on its thread goes back to its mailbox, where stop reaches it. */
  void dismiss() {
    while (true) {
      int s = state.get();
      if (s != SPINNING && s != PARKED) {
        return;
      }
      if (state.compareAndSet(s, DORMANT)) {
        if (s == PARKED) {
          LockSupport.unpark(thread);
        }
        return;
      }
    }
  }

  // ---- executor thread only -------------------------------------------------------------------

  /**
   * The executor found nothing more to do: it is idle from now on. It spins first only if {@code
   * maySpin} (the executor decides: see CommitExecutor) and the previous idle period was short
   * enough for a spin to have caught its end (commits are arriving).
   */
  void idle(boolean maySpin) {
    long now = System.nanoTime();
    idleSince = now;
    spinUntil = maySpin && spinNanos > 0 && lastIdleNanos <= spinNanos ? now + spinNanos : now;
    spins = 0;
    state.set(SPINNING);
  }

  /**
   * The executor took queued work after waiting: it runs, whether an admission claimed it or not
   * (a claim racing with this is ended here too: the claimer's commit is queued, and this
   * executor takes it next or another does).
   */
  void resume() {
    state.set(RUNNING);
    lastIdleNanos = System.nanoTime() - idleSince;
  }

  /**
   * Claimed, but the commit behind the claim was taken already (by this executor before the claim
   * landed, or by another): idle again, straight from {@code CLAIMED}. It never passes through
   * {@code RUNNING} on the way: an admission in between would find no idle and no claimed executor
   * and ask for another one, though this one is about to look at the queue again.
   */
  void reidle(boolean maySpin) {
    long now = System.nanoTime();
    lastIdleNanos = now - idleSince;
    idleSince = now;
    spinUntil = maySpin && spinNanos > 0 && lastIdleNanos <= spinNanos ? now + spinNanos : now;
    spins = 0;
    state.compareAndSet(CLAIMED, SPINNING); // only this executor leaves CLAIMED
  }

  /**
   * The executor starts a unit of work (a lone commit or a merged group) at {@code now}. A brief
   * one lets admissions leave the queue to this executor for {@link BriefWork#WINDOW_NANOS}.
   */
  void working(long now, boolean brief) {
    briefUntil = brief ? now + BriefWork.WINDOW_NANOS : now;
  }

  /** The executor took queued work at the start of a drain (after a {@code Wake}): it runs. */
  void running() {
    if (state.get() != RUNNING) {
      state.set(RUNNING);
    }
  }

  /** Go dormant now instead of waiting (unless claimed meanwhile): the executor will return to its mailbox. */
  void goDormant() {
    int s = state.get();
    if (s == SPINNING || s == PARKED) {
      state.compareAndSet(s, DORMANT);
    }
  }

  /** The executor saw itself dormant: it returns to its mailbox, and will not spin after its next wake-up. */
  void leaveForMailbox() {
    lastIdleNanos = Long.MAX_VALUE;
  }

  /**
   * Wait a little for a claim: one spin step while spinning, else park (at most until the park
   * limit, then go dormant). The caller looks at the queue and the state again after each call.
   */
  void await() {
    int s = state.get();
    if (s == SPINNING) {
      long now = System.nanoTime();
      if (now - spinUntil < 0) {
        if (++spins % YIELD_EVERY == 0) {
          Thread.yield();
        } else {
          Thread.onSpinWait();
        }
      } else if (state.compareAndSet(SPINNING, PARKED)) {
        parkUntil = now + PARK_LIMIT;
      }
    } else if (s == PARKED) {
      long left = parkUntil - System.nanoTime();
      if (left > 0) {
        LockSupport.parkNanos(this, left);
      } else {
        state.compareAndSet(PARKED, DORMANT);
      }
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
