package io.commitlane.storage;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of a database that runs physical store drops, so the commit that releases the
 * last claim only hands the drop over and never waits for RocksDB's drop itself. Started on the
 * first drop, gone after a few idle seconds; tasks run one at a time, in order.
 */
final class StoreDropExecutor implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(StoreDropExecutor.class);

  private final ThreadPoolExecutor pool;
  private volatile boolean used;
  private volatile Thread thread;
  private final String name;

  StoreDropExecutor(String databaseName) {
    this.name = databaseName;
    this.pool = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "commitlane-store-drop-" + databaseName);
      t.setDaemon(true);
      thread = t;
      return t;
    });
    pool.allowCoreThreadTimeOut(true);
  }

  /** Throws {@link RejectedExecutionException} once {@link #shutdown()} ran. */
  @Override
  public void execute(Runnable task) {
    used = true;
    pool.execute(task);
  }

  /**
   * Wait for every task handed over so far (the database is closing; claims are all released), at
   * most {@code timeout}: a dependent stage of a drop runs on this thread and might wait for the
   * closer itself. Tasks that run later find the database closed and leave their drop recorded.
   */
  void drain(Duration timeout) {
    if (!used) {
      return; // nothing was ever handed over: do not start a thread to find that out
    }
    if (Thread.currentThread() == thread) {
      return; // closed from a drop's own callback: waiting here would wait for ourselves
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      pool.execute(() -> done.complete(null));
    } catch (RejectedExecutionException e) {
      return;
    }
    try {
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warn("store drops of {} still running after {}; the next open finishes what they leave", name, timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // completes normally or not at all
    }
  }

  void shutdown() {
    pool.shutdown();
  }
}
