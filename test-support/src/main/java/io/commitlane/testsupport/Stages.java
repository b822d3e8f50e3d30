package io.commitlane.testsupport;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A test's waits on a {@link CompletionStage}: its value, or the cause it failed with, within a deadline. */
public final class Stages {
  private Stages() {}

  /** The value of {@code stage}; its failure's cause rethrown (unchecked) if it fails or does not end in time. */
  public static <T> T await(CompletionStage<T> stage, Duration within) {
    try {
      return stage.toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException re ? re : new IllegalStateException(c);
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The cause {@code stage} fails with, unwrapped from completion wrappers; an AssertionError if it succeeds. */
  public static Throwable failure(CompletionStage<?> stage, Duration within) {
    try {
      Object v = stage.toCompletableFuture().get(within.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a failure, got " + v);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      while (c instanceof CompletionException && c.getCause() != null) {
        c = c.getCause();
      }
      return c;
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError(e);
    }
  }
}
