package io.commitlane.testkit;

import io.commitlane.testkit.internal.stage.ExecutorHolds;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Steps tagged commits through their stages, one instruction at a time. Every commit whose tag
 * the schedule names holds at its first stage (after {@code ADMITTED}, which runs on the
 * caller's thread) until a step lets it go further, so what happens between steps is decided by
 * the test, not by thread timing:
 *
 * <pre>{@code
 * StageSchedule s = control.schedule(Duration.ofSeconds(10), "A", "B");
 * // start A and B committing on their own threads, then:
 * s.letReach("A", CommitStage.WRITTEN)   // A written, held there
 *  .letReach("B", CommitStage.FINISHED)  // B overtakes A
 *  .letFinish("A");                      // then A completes
 * }</pre>
 *
 * A step that does not happen within the timeout fails with a {@link StageTimeoutException} that
 * says which commit was waiting where. A commit "reaches" a stage when it arrives there or at a
 * later one (some paths skip stages); it is then held at the first stage at or after the target.
 */
public final class StageSchedule {
  private final StageControl control;
  private final Positions positions;
  private final Duration timeout;
  private final List<String> steps = new ArrayList<>();

  StageSchedule(StageControl control, Positions positions, Duration timeout, List<Object> tags) {
    this.control = control;
    this.positions = positions;
    this.timeout = timeout;
    for (Object tag : tags) {
      positions.control(tag);
    }
  }

  /** Let the commit tagged {@code tag} run until it reaches {@code stage}, and hold it there. */
  public StageSchedule letReach(Object tag, CommitStage stage) {
    String step = "let " + tag + " reach " + stage;
    steps.add(step);
    positions.allowUntil(tag, stage);
    awaitAt(tag, stage, step);
    return this;
  }

  /** Release the commit tagged {@code tag} and wait until it reached {@link CommitStage#FINISHED}. */
  public StageSchedule letFinish(Object tag) {
    String step = "let " + tag + " finish";
    steps.add(step);
    positions.release(tag);
    awaitAt(tag, CommitStage.FINISHED, step);
    return this;
  }

  /** Release the commit tagged {@code tag} without waiting for it. */
  public StageSchedule release(Object tag) {
    steps.add("release " + tag);
    positions.release(tag);
    return this;
  }

  /** The stage the commit tagged {@code tag} last arrived at, or null if none yet. */
  public CommitStage position(Object tag) {
    return positions.position(tag);
  }

  private void awaitAt(Object tag, CommitStage stage, String step) {
    String failure = positions.awaitReached(tag, stage, timeout);
    if (failure == null) {
      return;
    }
    if (!failure.isEmpty()) {
      throw new NoFreeExecutorException("step " + steps.size() + " (" + step + "): " + failure + ". Steps so far: " + steps);
    }
    throw new StageTimeoutException("step " + steps.size() + " (" + step + ") timed out after " + timeout + ": "
        + String.join("; ", control.describe()) + ". Steps so far: " + steps);
  }

  /** Where each scheduled commit is and how far it may go; shared with {@link StageControl}. */
  static final class Positions {
    private final Map<Object, Cursor> cursors = new ConcurrentHashMap<>();
    private final ExecutorHolds executors;

    Positions(ExecutorHolds executors) {
      this.executors = executors;
    }

    private static final class Cursor {
      CommitStage at;
      PendingCommit commit;
      // Volatile: ExecutorHolds asks whether a hold still blocks without this monitor.
      volatile CommitStage limit; // null: hold at the first stage reached
      volatile boolean released;
      boolean holding;

      /** Whether a commit at {@code stage} must wait. */
      boolean blocks(CommitStage stage) {
        // Unless a step says otherwise, a commit is held at its first stage after ADMITTED:
        // ADMITTED runs on the caller's own thread, which a schedule must not block by default.
        CommitStage l = limit;
        return !released && (l == null ? stage != CommitStage.ADMITTED : stage.compareTo(l) >= 0);
      }
    }

    /** A hold started or ended somewhere: re-check whether a waiter can still be satisfied. */
    synchronized void wake() {
      notifyAll();
    }

    synchronized void control(Object tag) {
      cursors.putIfAbsent(tag, new Cursor());
    }

    /** On the committing thread: record the arrival and hold while the schedule says so. */
    void arrive(CommitStage stage, PendingCommit c, Duration maxHold) {
      if (cursors.isEmpty() || c.tag() == null) {
        return;
      }
      Cursor cur = cursors.get(c.tag());
      if (cur == null) {
        return;
      }
      long deadline = System.nanoTime() + maxHold.toNanos();
      // Registered outside this monitor: ExecutorHolds wakes other monitors' waiters.
      boolean onExecutor = cur.blocks(stage)
          && executors.enter(c.tag() + " is held at " + stage + " by a schedule", () -> cur.blocks(stage));
      try {
        holdHere(cur, stage, c, deadline, maxHold);
      } finally {
        if (onExecutor) {
          executors.exit();
        }
      }
    }

    private void holdHere(Cursor cur, CommitStage stage, PendingCommit c, long deadline, Duration maxHold) {
      synchronized (this) {
        cur.at = stage;
        cur.commit = c;
        notifyAll();
        try {
          while (cur.blocks(stage)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
              throw new StageTimeoutException(c + " was held at " + stage + " by a schedule for " + maxHold);
            }
            cur.holding = true;
            TimeUnit.NANOSECONDS.timedWait(this, left);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(c + " was interrupted while held at " + stage, e);
        } finally {
          cur.holding = false;
        }
      }
    }

    synchronized void allowUntil(Object tag, CommitStage stage) {
      Cursor cur = cursor(tag);
      if (cur.at != null && cur.at.compareTo(stage) > 0) {
        throw new IllegalStateException(tag + " is already at " + cur.at + ", past " + stage);
      }
      cur.limit = stage;
      notifyAll();
    }

    synchronized void release(Object tag) {
      cursor(tag).released = true;
      notifyAll();
    }

    synchronized void releaseAll() {
      cursors.values().forEach(c -> c.released = true);
      notifyAll();
    }

    synchronized CommitStage position(Object tag) {
      Cursor c = cursors.get(tag);
      return c == null ? null : c.at;
    }

    /**
     * Null once the commit reached {@code stage}; else why not: the no-free-executor message when it
     * is queued behind holds that occupy every executor, or empty on timeout.
     */
    synchronized String awaitReached(Object tag, CommitStage stage, Duration timeout) {
      Cursor cur = cursor(tag);
      long deadline = System.nanoTime() + timeout.toNanos();
      try {
        while (cur.at == null || cur.at.compareTo(stage) < 0) {
          if (cur.at == CommitStage.ADMITTED && executors.isQueued(cur.commit)) {
            String stuck = executors.noFreeExecutor(tag + " (admitted, queued)");
            if (stuck != null) {
              return stuck;
            }
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return "";
          }
          TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "";
      }
    }

    synchronized List<String> describe() {
      List<String> out = new ArrayList<>();
      cursors.forEach((tag, c) -> out.add(c.at == null
          ? tag + " has not reached any stage (not started, or waiting for a lock another commit holds)"
          : c.at == CommitStage.ADMITTED && executors.isQueued(c.commit)
              ? tag + " is admitted and queued, waiting for a commit executor"
              : tag + (c.holding ? " is held at " : c.released ? " was released at " : " is at ") + c.at));
      String executorsHeld = executors.describe();
      if (!executorsHeld.isEmpty()) {
        out.add(executorsHeld);
      }
      return out;
    }

    private Cursor cursor(Object tag) {
      Cursor c = cursors.get(tag);
      if (c == null) {
        throw new IllegalArgumentException(tag + " is not controlled by this schedule; name it in StageControl.schedule(...)");
      }
      return c;
    }
  }
}
