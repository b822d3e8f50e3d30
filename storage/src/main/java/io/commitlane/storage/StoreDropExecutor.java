package io.commitlane.storage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread of a database that runs physical store drops, so the commit that releases the
 * last claim only hands the drop over and never waits for RocksDB's drop itself. Started on the
 * first drop, gone after a few idle seconds; tasks run one at a time, in order.
 */
final class StoreDropExecutor implements Executor {
  private final ThreadPoolExecutor pool;
  private volatile boolean used;

  StoreDropExecutor(String databaseName) {
    this.pool = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "commitlane-store-drop-" + databaseName);
      t.setDaemon(true);
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

  /** Wait for every task handed over so far (the database is closing; claims are all released). */
  void drain() {
    if (!used) {
      return; // nothing was ever handed over: do not start a thread to find that out
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      pool.execute(() -> done.complete(null));
    } catch (RejectedExecutionException e) {
      return;
    }
    done.join();
  }

  void shutdown() {
    pool.shutdown();
  }
}
