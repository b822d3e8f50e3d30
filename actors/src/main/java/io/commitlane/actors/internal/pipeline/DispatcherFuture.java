package io.commitlane.actors.internal.pipeline;

import io.commitlane.annotation.InternalApi;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A future whose {@code *Async} stages without an executor run on the given one (a Pekko
 * dispatcher), never on {@code ForkJoinPool.commonPool()}: on small machines the common pool has
 * parallelism 1 and starts a thread per callback.
 *
 * <p>INTERNAL API: shared by commitlane's modules; not for use outside them.
 */
@InternalApi
public class DispatcherFuture<T> extends CompletableFuture<T> {
  private final Executor executor;

  public DispatcherFuture(Executor executor) {
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
