package io.commitlane.testkit.internal.stage;

import io.commitlane.testkit.StageControl;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * Which commit executors a {@link StageControl}'s barriers and schedules hold. A commit held on an
 * executor thread keeps that executor from taking anything else off the database's queue, so when
 * every executor is held, a queued commit cannot move until the test releases one. Waiting for such
 * a commit can only end in a timeout; {@link #noFreeExecutor} says so at once instead.
 *
 * <p>Knows nothing until told how many executors there are ({@link StageControl#commitExecutors}):
 * with no count set, nothing is checked.
 *
 * <p>A hold counts only while it still blocks: each is registered with a check that reads the
 * barrier's or schedule's volatile state, so a release the test made is seen at once, before the
 * held thread has woken. Registration and wake-ups happen outside the barriers' and the schedule's
 * monitors, so no lock order arises between them.
 */
public final class ExecutorHolds {
  private record Hold(String what, BooleanSupplier blocking) {}

  private volatile int executors; // 0: unknown, nothing is checked
  private volatile String threadPrefix = "";
  private final Map<Thread, Hold> holds = new ConcurrentHashMap<>();
  /** Commits admitted to the queue and not yet taken by an executor (transaction ids). */
  private final Set<Long> queued = ConcurrentHashMap.newKeySet();
  private final List<Runnable> wakers = new CopyOnWriteArrayList<>();

  public void configure(int executors, String threadPrefix) {
    if (executors < 1) {
      throw new IllegalArgumentException("executors must be at least 1, was " + executors);
    }
    this.threadPrefix = threadPrefix;
    this.executors = executors;
    wakeAll();
  }

  /** Called for every stage event, before any hold: keeps the set of queued commits. */
  public void onStage(CommitStage stage, PendingCommit c) {
    // Either way a waiter may now decide: a commit joined the queue (an actor admits it on its own
    // thread, after the test started waiting), or one left it.
    if (stage == CommitStage.ADMITTED ? queued.add(c.transactionId()) : queued.remove(c.transactionId())) {
      wakeAll();
    }
  }

  /** Something that waits for commits to move: woken when a hold starts or ends. */
  public void onChange(Runnable waker) {
    wakers.add(waker);
  }

  /**
   * On the committing thread, before it blocks: if the thread is a commit executor, it is held
   * while {@code blocking} is true. Returns whether it was registered; then call {@link #exit()}.
   */
  public boolean enter(String what, BooleanSupplier blocking) {
    if (executors == 0 || !Thread.currentThread().getName().startsWith(threadPrefix)) {
      return false;
    }
    holds.put(Thread.currentThread(), new Hold(what, blocking));
    wakeAll();
    return true;
  }

  public void exit() {
    if (holds.remove(Thread.currentThread()) != null) {
      wakeAll();
    }
  }

  public boolean isQueued(PendingCommit c) {
    return queued.contains(c.transactionId());
  }

  public boolean anyQueued() {
    return !queued.isEmpty();
  }

  /**
   * Null while some executor is free (or the count is unknown); else a message that says every
   * executor is held, by what, and how to get another. {@code waiting} names what the test waits for.
   */
  public String noFreeExecutor(String waiting) {
    int n = executors;
    if (n == 0) {
      return null;
    }
    List<String> blocking = new ArrayList<>();
    for (Hold h : holds.values()) {
      if (h.blocking().getAsBoolean()) {
        blocking.add(h.what());
      }
    }
    if (blocking.size() < n) {
      return null;
    }
    return waiting + " needs a commit executor, but all " + n + " (commit-threads = " + n + ") are held: "
        + String.join("; ", blocking) + ". It cannot move until one of them is released. Release a held commit first,"
        + " or give the database more executors: commit-threads = " + (n + 1) + " in its settings, or"
        + " @CommitlaneTest(commitThreads = " + (n + 1) + ") on the test";
  }

  /** For timeout messages: a sentence when every executor is held, else empty. */
  public String describe() {
    String m = noFreeExecutor("a queued commit");
    return m == null ? "" : m;
  }

  private void wakeAll() {
    for (Runnable w : wakers) {
      w.run();
    }
  }
}
