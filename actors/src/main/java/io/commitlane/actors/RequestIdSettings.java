package io.commitlane.actors;

import java.time.Duration;

/**
 * {@code commitlane.request-ids}: how long, and how many, the request ids a database applied are
 * remembered ({@link RequestId}). An id is remembered for {@code window} at least: its record goes
 * at the first purge after the window ends, never sooner, and a request repeated after that is
 * applied again. While {@code maxIds} ids are remembered, a write with a new id is refused
 * ({@code Failed(OVERLOADED)}, retryable, nothing written) rather than an id forgotten early: the
 * sustained rate of writes with ids is at most {@code maxIds / window} (about 110 a second with
 * the defaults).
 *
 * <p>Ranges: {@code PipelineKeys}; defaults: {@code reference.conf}, checked when {@link
 * PipelineSettings} is built.
 */
public record RequestIdSettings(Duration window, long maxIds, Duration purgeInterval) {
  /** The defaults of {@code reference.conf}. */
  public static RequestIdSettings defaults() {
    return PipelineSettings.defaults().requestIds();
  }
}
