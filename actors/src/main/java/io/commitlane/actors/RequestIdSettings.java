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
 * @param window how long an applied id is remembered at least, 1 s..30 days
 * @param maxIds how many ids a database remembers at most, 1..100000000
 * @param purgeInterval how often records past the window are deleted, 100 ms..1 day
 */
public record RequestIdSettings(Duration window, long maxIds, Duration purgeInterval) {
  public static final long MAX_IDS = 100_000_000L;

  public static RequestIdSettings defaults() {
    return new RequestIdSettings(Duration.ofMinutes(15), 100_000, Duration.ofMinutes(1));
  }
}
