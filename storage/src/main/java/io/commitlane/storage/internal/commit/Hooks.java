package io.commitlane.storage.internal.commit;

import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.LogCapture;
import java.util.Arrays;

/**
 * The commit hooks and stage listeners installed on one database. Copy-on-write arrays: the
 * commit path pays a volatile read per call and loops over nothing when none is installed.
 */
public final class Hooks {
  private static final StageListener[] NO_LISTENERS = {};
  private static final CommitHook[] NO_HOOKS = {};

  private volatile StageListener[] listeners = NO_LISTENERS;
  private volatile CommitHook[] hooks = NO_HOOKS;
  /** How checkpoints and backups copy the logs, installed by the module that writes them; null: copied as files. */
  private volatile LogCapture logCapture;

  public LogCapture logCapture() {
    return logCapture;
  }

  public void logCapture(LogCapture capture) {
    this.logCapture = capture;
  }

  public synchronized Runnable add(StageListener l) {
    listeners = append(listeners, l);
    return () -> remove(l);
  }

  public synchronized Runnable add(CommitHook h) {
    hooks = append(hooks, h);
    return () -> remove(h);
  }

  private synchronized void remove(StageListener l) {
    listeners = Arrays.stream(listeners).filter(x -> x != l).toArray(StageListener[]::new);
  }

  private synchronized void remove(CommitHook h) {
    hooks = Arrays.stream(hooks).filter(x -> x != h).toArray(CommitHook[]::new);
  }

  /** Whether an installed hook writes transaction logs ({@link CommitHook#writesLogs()}). */
  public boolean writesLogs() {
    for (CommitHook h : hooks) {
      if (h.writesLogs()) {
        return true;
      }
    }
    return false;
  }

  public boolean hasListeners() {
    return listeners.length > 0;
  }

  public void stage(CommitStage stage, PendingCommit c) {
    for (StageListener l : listeners) {
      l.onStage(stage, c);
    }
  }

  void beforeWrite(PendingCommit c) {
    CommitHook[] hs = hooks;
    for (int i = 0; i < hs.length; i++) {
      try {
        hs[i].beforeWrite(c);
      } catch (RuntimeException | Error e) {
        // Undo what the earlier hooks did: this commit will not be written.
        Throwable undoFailure = null;
        for (int j = i - 1; j >= 0; j--) {
          try {
            hs[j].aborted(c, e);
          } catch (RuntimeException | Error f) {
            undoFailure = undoFailure == null ? f : undoFailure;
          }
        }
        if (undoFailure != null) {
          throw unknownOutcome(c, undoFailure, e);
        }
        throw e;
      }
    }
  }

  /**
   * Every hook undoes its before-write step, even after one that could not: the first failure is
   * rethrown at the end (the commit's outcome is then unknown, see {@link CommitPath}).
   */
  void aborted(PendingCommit c, Throwable cause) {
    RuntimeException first = null;
    for (CommitHook h : hooks) {
      try {
        h.aborted(c, cause);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static CommitOutcomeUnknownException unknownOutcome(PendingCommit c, Throwable undoFailure, Throwable cause) {
    CommitOutcomeUnknownException unknown = undoFailure instanceof CommitOutcomeUnknownException u ? u
        : new CommitOutcomeUnknownException(c.transactionId(), "a commit hook failed and another could not undo"
            + " what it did before the write", undoFailure);
    unknown.addSuppressed(cause);
    return unknown;
  }

  /**
   * WRITTEN, the hooks' after-write step, FINISHED. Every step runs even if an earlier one failed
   * (the data is written: the log watermark must still move); the first failure is rethrown at the
   * end, so a commit whose durability a hook could not complete is never reported committed.
   */
  void afterWriteStages(PendingCommit c) {
    RuntimeException failure = null;
    try {
      stage(CommitStage.WRITTEN, c);
    } catch (RuntimeException e) {
      failure = e;
    }
    for (CommitHook h : hooks) {
      try {
        h.afterWrite(c);
      } catch (RuntimeException e) {
        // Written, but not vouched for: report it (NotDurableException), keep the other hooks going.
        failure = failure == null ? e : failure;
      }
    }
    try {
      stage(CommitStage.FINISHED, c);
    } catch (RuntimeException e) {
      failure = failure == null ? e : failure;
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static <T> T[] append(T[] array, T item) {
    T[] next = Arrays.copyOf(array, array.length + 1);
    next[array.length] = item;
    return next;
  }
}
