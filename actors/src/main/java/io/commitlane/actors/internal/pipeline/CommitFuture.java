package io.commitlane.actors.internal.pipeline;

import io.commitlane.storage.CommitResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The future a commit returns. A commit thread completes it, but no user code ever runs there:
 * every dependent stage, including the "non-async" ones ({@code thenApply}, {@code whenComplete},
 * ...), runs on the database's completion executor (Pekko's default dispatcher unless configured),
 * and so do {@code *Async} stages given no executor (never {@code ForkJoinPool.commonPool()}).
 * A thread blocked in {@code join()} or {@code get()} is woken directly by the commit thread.
 */
public class CommitFuture<T> extends CompletableFuture<T> {
  private final Executor executor;

  public CommitFuture(Executor executor) {
    this.executor = executor;
  }

  /** A commit's future that is also where its outcome is delivered: one object per commit, not two. */
  static final class OfCommit extends CommitFuture<CommitResult> implements CommitRequest.Completion {
    OfCommit(Executor executor) {
      super(executor);
    }

    @Override
    public void committed(CommitResult result) {
      complete(result);
    }

    @Override
    public void failed(Throwable cause) {
      completeExceptionally(cause);
    }
  }

  @Override
  public Executor defaultExecutor() {
    return executor;
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CommitFuture<>(executor);
  }

  @Override
  public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
    return thenApplyAsync(fn, executor);
  }

  @Override
  public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
    return thenAcceptAsync(action, executor);
  }

  @Override
  public CompletableFuture<Void> thenRun(Runnable action) {
    return thenRunAsync(action, executor);
  }

  @Override
  public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other, BiFunction<? super T, ? super U, ? extends V> fn) {
    return thenCombineAsync(other, fn, executor);
  }

  @Override
  public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other, BiConsumer<? super T, ? super U> action) {
    return thenAcceptBothAsync(other, action, executor);
  }

  @Override
  public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
    return runAfterBothAsync(other, action, executor);
  }

  @Override
  public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
    return applyToEitherAsync(other, fn, executor);
  }

  @Override
  public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
    return acceptEitherAsync(other, action, executor);
  }

  @Override
  public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
    return runAfterEitherAsync(other, action, executor);
  }

  @Override
  public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
    return thenComposeAsync(fn, executor);
  }

  @Override
  public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
    return handleAsync(fn, executor);
  }

  @Override
  public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
    return whenCompleteAsync(action, executor);
  }

  @Override
  public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
    return exceptionallyAsync(fn, executor);
  }

  @Override
  public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
    return exceptionallyComposeAsync(fn, executor);
  }
}
