package io.commitlane.cluster;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A future whose {@code *Async} stages without an executor run on a Pekko dispatcher, never on
 * {@code ForkJoinPool.commonPool()} (parallelism 1 on small machines: a thread per callback).
 */
class DispatcherFuture<T> extends CompletableFuture<T> {
  private final Executor executor;

  DispatcherFuture(Executor executor) {
    this.executor = executor;
  }

  @Override
  public Executor defaultExecutor() {
    return executor;
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new DispatcherFuture<>(executor);
  }
}
