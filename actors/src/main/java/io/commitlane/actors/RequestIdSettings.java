package io.commitlane.actors;

import java.time.Duration;

/**
 * {@code commitlane.request-ids}: how long, and how many, the request ids a database applied are
 * remembered ({@link RequestId}). A record goes when it is older than {@code window} or when more
 * than {@code maxIds} newer ones exist, whichever comes first, at the next purge; a request
 * repeated after its record went is applied again.
 *
 * @param window how long an applied id is remembered, 1 s..30 days
 * @param maxIds how many ids a database remembers at most (the oldest go first), 1..100000000
 * @param purgeInterval how often records past either bound are deleted, 100 ms..1 day
 */
public record RequestIdSettings(Duration window, long maxIds, Duration purgeInterval) {
  public static final long MAX_IDS = 100_000_000L;

  public static RequestIdSettings defaults() {
    return new RequestIdSettings(Duration.ofMinutes(15), 100_000, Duration.ofMinutes(1));
  }
}
