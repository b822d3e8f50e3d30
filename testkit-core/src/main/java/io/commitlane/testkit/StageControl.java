package io.commitlane.testkit;

import io.commitlane.testkit.internal.stage.ExecutorHolds;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.StageListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forces interleavings and faults in a database's commit path: barriers that hold a commit at a
 * stage, delays, injected failures, and {@link StageSchedule}s that step tagged commits through
 * their stages. Installed on a database (every handle of its path); {@link #close()} removes it
 * and releases everything it holds.
 *
 * <pre>{@code
 * try (StageControl control = StageControl.install(db)) {
 *   Barrier atWrite = control.barrier(CommitStage.VALIDATED, StageControl.tagged("A"));
 *   // ... start A's commit on another thread ...
 *   atWrite.awaitArrival(Duration.ofSeconds(10));   // A holds its locks here
 *   atWrite.release();
 * }
 * }</pre>
 *
 * <p>When none is installed the commit path pays one volatile read per stage.
 */
public final class StageControl implements StageListener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StageControl.class);
  /** How long a barrier holds a commit before failing it, so a forgotten release cannot hang a suite. */
  public static final Duration DEFAULT_MAX_HOLD = Duration.ofSeconds(60);

  private final Database.Registration registration;
  private final List<Barrier> barriers = new CopyOnWriteArrayList<>();
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final StageTrace trace = new StageTrace();
  private final ExecutorHolds executors = new ExecutorHolds();
  private final StageSchedule.Positions positions = new StageSchedule.Positions(executors);
  private volatile Duration maxHold = DEFAULT_MAX_HOLD;

  private StageControl(Database db) {
    executors.onChange(positions::wake);
    this.registration = db.addStageListener(this);
  }

  public static StageControl install(Database db) {
    return new StageControl(Objects.requireNonNull(db, "db"));
  }

  /** Commits whose tag equals {@code tag}. */
  public static Predicate<PendingCommit> tagged(Object tag) {
    return c -> tag.equals(c.tag());
  }

  public static Predicate<PendingCommit> any() {
    return c -> true;
  }

  /** Hold matching commits at {@code stage} until the barrier is released. */
  public Barrier barrier(CommitStage stage, Predicate<PendingCommit> which) {
    return add(new Barrier(stage, which, String.valueOf(which), executors));
  }

  public Barrier barrier(CommitStage stage, Object tag) {
    return add(new Barrier(stage, tagged(tag), "tag " + tag, executors));
  }

  private Barrier add(Barrier b) {
    executors.onChange(b::wake);
    barriers.add(b);
    return b;
  }

  /**
   * Tells this control that the database's pipeline commits run on {@code commitThreads} executor
   * threads whose names start with {@code threadNamePrefix}. A commit held on one of them occupies
   * it; when the holds occupy every executor, a schedule step or barrier wait for a queued commit
   * fails at once with a {@link NoFreeExecutorException} (it could only time out), and a commit
   * admitted then is logged at WARN. The JUnit support sets this for the databases it opens.
   */
  public StageControl commitExecutors(int commitThreads, String threadNamePrefix) {
    executors.configure(commitThreads, Objects.requireNonNull(threadNamePrefix, "threadNamePrefix"));
    return this;
  }

  /** Delay matching commits at {@code stage} by {@code delay} (on the committing thread). */
  public Rule delay(CommitStage stage, Predicate<PendingCommit> which, Duration delay) {
    long nanos = delay.toNanos();
    // The delay is the feature: the committing thread really spends this long in the stage.
    // parkNanos may return early, so park until the deadline has passed.
    return add(new Rule(stage, which, -1, c -> {
      long deadline = System.nanoTime() + nanos;
      for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
    }, "delay " + delay));
  }

  /**
   * Fail matching commits at {@code stage} with the supplied exception, {@code times} times
   * ({@code -1}: always). Before {@code WRITTEN} nothing is written; from {@code WRITTEN} on the
   * data is written and only the acknowledgement is lost (see {@link StageListener}).
   */
  public Rule fail(CommitStage stage, Predicate<PendingCommit> which, int times, Supplier<? extends RuntimeException> error) {
    return add(new Rule(stage, which, times, c -> {
      throw error.get();
    }, "fail"));
  }

  /** A schedule that steps the given tagged commits through their stages; they hold until told. */
  public StageSchedule schedule(Duration stepTimeout, Object... tags) {
    return new StageSchedule(this, positions, stepTimeout, List.of(tags));
  }

  /** Every stage event seen so far, in order. */
  public StageTrace trace() {
    return trace;
  }

  /** How long a barrier or schedule may hold one commit before failing it (default 60 s). */
  public StageControl maxHold(Duration d) {
    this.maxHold = Objects.requireNonNull(d);
    return this;
  }

  Duration maxHold() {
    return maxHold;
  }

  @Override
  public void onStage(CommitStage stage, PendingCommit commit) {
    trace.record(stage, commit);
    executors.onStage(stage, commit);
    if (stage == CommitStage.ADMITTED) {
      warnIfNoExecutorIsFree(commit);
    }
    positions.arrive(stage, commit, maxHold);
    for (Barrier b : barriers) {
      if (b.matches(stage, commit)) {
        b.hold(commit, maxHold);
      }
    }
    for (Rule r : rules) {
      r.apply(stage, commit);
    }
  }

  /** Remove the listener and release every barrier and schedule hold. */
  @Override
  public void close() {
    registration.close();
    barriers.forEach(Barrier::release);
    positions.releaseAll();
    rules.forEach(Rule::disable);
  }

  private void warnIfNoExecutorIsFree(PendingCommit commit) {
    String stuck = executors.noFreeExecutor(commit.toString());
    if (stuck != null) {
      // Not an error: a test may queue a commit behind a hold on purpose. Shown when the test fails.
      LOG.warn("{} was admitted while no commit executor is free; {}", commit, stuck);
    }
  }

  private Rule add(Rule r) {
    rules.add(r);
    return r;
  }

  /** A delay or failure rule; {@link #disable()} turns it off. */
  public static final class Rule {
    private final CommitStage stage;
    private final Predicate<PendingCommit> which;
    private final java.util.function.Consumer<PendingCommit> action;
    private final String description;
    private int remaining;
    private int applied;
    private volatile boolean enabled = true;

    Rule(CommitStage stage, Predicate<PendingCommit> which, int times, java.util.function.Consumer<PendingCommit> action, String description) {
      this.stage = stage;
      this.which = which;
      this.remaining = times;
      this.action = action;
      this.description = description;
    }

    void apply(CommitStage s, PendingCommit c) {
      if (!enabled || s != stage || !which.test(c)) {
        return;
      }
      synchronized (this) {
        if (remaining == 0) {
          return;
        }
        if (remaining > 0) {
          remaining--;
        }
        applied++;
      }
      action.accept(c);
    }

    /** How many commits this rule acted on. */
    public synchronized int applied() {
      return applied;
    }

    public void disable() {
      enabled = false;
    }

    @Override
    public String toString() {
      return description + " at " + stage;
    }
  }

  /** For StageSchedule's messages. */
  List<String> describe() {
    return new ArrayList<>(positions.describe());
  }
}
