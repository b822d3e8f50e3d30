package io.commitlane.actors.internal.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor of commit callbacks. Outside a drain it hands each task to the completion
 * dispatcher. While a commit executor drains ({@link #collect()} .. {@link #stop()}), the tasks
 * that completing commits schedule (their callbacks) are collected on that thread and handed to
 * the dispatcher as one task: one dispatcher wake-up for a batch of completions instead of one
 * each. The callbacks still run on the completion dispatcher, never on the commit thread; they
 * run one after another inside that task, as Scala's batching executor runs future callbacks.
 *
 * <p>A batch goes at {@link #MAX_BATCH} tasks, when the executor flushes (its queue ran dry), and
 * after each merged write group ({@link #deliveringGroup()}): a group's callbacks go as one task, so
 * a caller with several commits in the group is woken once for all of them.
 */
public final class CompletionBatcher implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(CompletionBatcher.class);
  /** A flush at this many tasks bounds how long an early callback waits for the drain to go on. */
  static final int MAX_BATCH = 16;
  /** The bound while a merged group delivers its outcomes (the group's size bounds the wait instead). */
  static final int MAX_GROUP_BATCH = 256;

  private final Executor dispatcher;
  private final ThreadLocal<Batch> collecting = new ThreadLocal<>();

  /** The tasks collected on one executor thread. */
  private static final class Batch {
    List<Runnable> tasks = new ArrayList<>(MAX_BATCH);
    int limit = MAX_BATCH;
  }

  public CompletionBatcher(Executor dispatcher) {
    this.dispatcher = dispatcher;
  }

  @Override
  public void execute(Runnable task) {
    Batch batch = collecting.get();
    if (batch == null) {
      dispatcher.execute(task);
      return;
    }
    batch.tasks.add(task);
    if (batch.tasks.size() >= batch.limit) {
      flush();
    }
  }

  /** On a commit executor's thread: start collecting callbacks. */
  public void collect() {
    if (collecting.get() == null) {
      collecting.set(new Batch());
    }
  }

  /**
   * On a collecting thread: a merged group delivers its outcomes now; collect its callbacks
   * together (up to {@link #MAX_GROUP_BATCH}) until the next {@link #flush()}.
   */
  void deliveringGroup() {
    Batch batch = collecting.get();
    if (batch != null) {
      batch.limit = MAX_GROUP_BATCH;
    }
  }

  /** Hand what was collected to the dispatcher as one task; keep collecting. */
  void flush() {
    Batch batch = collecting.get();
    if (batch == null) {
      return;
    }
    batch.limit = MAX_BATCH;
    List<Runnable> tasks = batch.tasks;
    if (tasks.isEmpty()) {
      return;
    }
    batch.tasks = new ArrayList<>(MAX_BATCH);
    if (tasks.size() == 1) {
      dispatcher.execute(tasks.get(0));
      return;
    }
    dispatcher.execute(() -> {
      for (Runnable r : tasks) {
        try {
          r.run();
        } catch (RuntimeException e) {
          // CompletableFuture's own tasks capture their failures; anything else must not stop the batch.
          LOG.error("a commit callback failed", e);
        }
      }
    });
  }

  /** Flush and stop collecting (the drain ended, normally or not). */
  public void stop() {
    flush();
    collecting.remove();
  }
}
