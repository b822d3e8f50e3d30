package io.commitlane.actors.projection;

import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.stream.KillSwitch;

/**
 * A running projection: its status, and how to stop it. What {@link Projection#run} returns and
 * {@link Projection#source()} materializes. Thread-safe. Its stages' {@code *Async} callbacks
 * without an executor run on the stream's dispatcher, never on {@code ForkJoinPool.commonPool()}.
 *
 * <p>As a {@link KillSwitch}: {@link #shutdown()} is {@link #stop()}, {@link #abort(Throwable)}
 * fails the projection with the error at once, without waiting for the batch it is committing
 * (whose outcome is then unknown to the runner, and safe either way: its writes and its position
 * commit together or not at all).
 */
public interface ProjectionControl extends KillSwitch {
  /** The projection's name. */
  String projection();

  /** The runner as it is now. */
  ProjectionStatus status();

  /**
   * Stop after the outcome of the batch being committed, if any (no batch is started after this
   * call). Completes as {@link #whenStopped()}. Idempotent.
   */
  CompletionStage<Done> stop();

  /**
   * Completes once this runner's projection is through {@code position}: its stored position (as
   * this runner loaded or committed it) is at or past it, so the writes of the record at that
   * position are in the database. For read-your-writes on a read model: wait for the log position
   * of a commit ({@code Committed.logPosition()}, or a record's position), then read. Fails with
   * {@link IllegalStateException} if the runner stops first.
   */
  CompletionStage<Done> whenThrough(long position);

  /**
   * Completes when the runner has stopped: with {@code Done} after {@link #stop()} (or when its
   * stream's downstream cancelled), exceptionally with the error that stopped it otherwise.
   */
  CompletionStage<Done> whenStopped();
}
