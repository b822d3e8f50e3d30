package io.commitlane.actors.stream.internal;

import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.stream.Backoff;
import io.commitlane.actors.stream.ConflictRetry;
import io.commitlane.actors.stream.FailureMode;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads one section of {@code commitlane.stream { ... }}: its keys (any other is refused), and
 * the two values the stream stages share, their conflict retry and their failure mode. Errors
 * name the full path of their key and are collected in the {@link ConfigSection}.
 */
public final class StreamConfig {
  public static final String ROOT = "commitlane.stream";

  private static final Set<String> CONFLICT_RETRY_KEYS = Set.of("conflict-retry.max-attempts", "conflict-retry.backoff-min",
      "conflict-retry.backoff-max", "conflict-retry.backoff-random-factor");
  private static final String FAILURE_MODE = "failure-mode";

  private StreamConfig() {}

  /**
   * {@code commitlane.stream.<name>} of {@code config}, refusing any key that is neither in
   * {@code ownKeys} nor one of the shared conflict-retry and failure-mode keys.
   */
  public static ConfigSection section(Config config, String name, Set<String> ownKeys) {
    Set<String> keys = new HashSet<>(ownKeys);
    keys.addAll(CONFLICT_RETRY_KEYS);
    keys.add(FAILURE_MODE);
    ConfigSection c = new ConfigSection(config, ROOT + "." + name);
    c.refuseUnknown(keys::contains, key -> "is not a setting; the nearest known key is " + c.path(ConfigSection.nearest(key, keys))
        + " (known: " + new TreeSet<>(keys) + ")");
    return c;
  }

  public static FailureMode failureMode(ConfigSection c, FailureMode fallback) {
    return c.oneOf(FAILURE_MODE, FailureMode.values(), fallback);
  }

  /**
   * The conflict-retry keys of the section. Their range errors are reported with full paths; the
   * fallback replaces a bad value so the rest of the section is still checked.
   */
  public static ConflictRetry conflictRetry(ConfigSection c, ConflictRetry fallback) {
    int attempts = c.integer("conflict-retry.max-attempts", fallback.maxAttempts());
    Duration min = c.duration("conflict-retry.backoff-min", fallback.backoff().min());
    Duration max = c.duration("conflict-retry.backoff-max", fallback.backoff().max());
    double random = c.decimal("conflict-retry.backoff-random-factor", fallback.backoff().randomFactor());
    boolean ok = true;
    if (attempts < 1 || attempts > 1000) {
      c.error("conflict-retry.max-attempts", attempts, "must be an integer in 1..1000");
      ok = false;
    }
    if (min.isNegative() || min.compareTo(Duration.ofMinutes(1)) > 0) {
      c.error("conflict-retry.backoff-min", min, "must be a duration in 0..1 minute");
      ok = false;
    }
    if (max.isNegative() || max.compareTo(Duration.ofMinutes(1)) > 0 || max.compareTo(min) < 0) {
      c.error("conflict-retry.backoff-max", max, "must be a duration in backoff-min..1 minute");
      ok = false;
    }
    if (!(random >= 0 && random <= 1)) {
      c.error("conflict-retry.backoff-random-factor", random, "must be a number in 0.0..1.0");
      ok = false;
    }
    return ok ? new ConflictRetry(attempts, new Backoff(min, max, random)) : fallback;
  }
}
