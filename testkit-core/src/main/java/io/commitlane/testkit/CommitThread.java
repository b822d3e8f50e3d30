package io.commitlane.testkit;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs a blocking piece of work (a {@code commitSync()}, say) on a new named thread and returns a
 * future completed by that thread: how a test starts a commit that a barrier or schedule will
 * hold, without touching the common pool.
 */
public final class CommitThread {
  private CommitThread() {}

  public static <T> CompletableFuture<T> start(String name, Supplier<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(work.get());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return result;
  }

  public static CompletableFuture<Void> run(String name, Runnable work) {
    return start(name, () -> {
      work.run();
      return null;
    });
  }
}
