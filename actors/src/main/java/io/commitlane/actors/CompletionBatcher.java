package io.commitlane.actors;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor of commit callbacks. Outside a drain it hands each task to the completion
 * dispatcher. While a commit executor drains ({@link #collect()} .. {@link #flush()}), the tasks
 * that completing commits schedule (their callbacks) are collected on that thread and handed to
 * the dispatcher as one task: one dispatcher wake-up for a batch of completions instead of one
 * each. The callbacks still run on the completion dispatcher, never on the commit thread; they
 * run one after another inside that task, as Scala's batching executor runs future callbacks.
 */
final class CompletionBatcher implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(CompletionBatcher.class);
  /** A flush at this many tasks bounds how long an early callback waits for the drain to go on. */
  static final int MAX_BATCH = 16;

  private final Executor dispatcher;
  private final ThreadLocal<List<Runnable>> collecting = new ThreadLocal<>();

  CompletionBatcher(Executor dispatcher) {
    this.dispatcher = dispatcher;
  }

  @Override
  public void execute(Runnable task) {
    List<Runnable> batch = collecting.get();
    if (batch == null) {
      dispatcher.execute(task);
      return;
    }
    batch.add(task);
    if (batch.size() >= MAX_BATCH) {
      flush();
    }
  }

  /** On a commit executor's thread: start collecting callbacks. */
  void collect() {
    if (collecting.get() == null) {
      collecting.set(new ArrayList<>(MAX_BATCH));
    }
  }

  /** Hand what was collected to the dispatcher as one task; keep collecting. */
  void flush() {
    List<Runnable> batch = collecting.get();
    if (batch == null || batch.isEmpty()) {
      return;
    }
    collecting.set(new ArrayList<>(MAX_BATCH));
    if (batch.size() == 1) {
      dispatcher.execute(batch.get(0));
      return;
    }
    dispatcher.execute(() -> {
      for (Runnable r : batch) {
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
  void stop() {
    flush();
    collecting.remove();
  }
}
