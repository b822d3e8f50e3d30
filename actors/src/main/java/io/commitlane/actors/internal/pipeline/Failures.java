package io.commitlane.actors.internal.pipeline;

import io.commitlane.annotation.InternalApi;
import java.util.concurrent.CompletionException;

/**
 * The failure a future's stage reports, without the {@link CompletionException}s that dependent
 * stages wrap it in.
 *
 * <p>INTERNAL API: shared by commitlane's modules; not for use outside them.
 */
@InternalApi
public final class Failures {
  private Failures() {}

  /** {@code error} without its {@link CompletionException} wrappers (however many); never null for a non-null error. */
  public static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
