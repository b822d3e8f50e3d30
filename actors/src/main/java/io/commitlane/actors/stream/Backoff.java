package io.commitlane.actors.stream;

import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An exponential delay: {@code min}, doubling per step up to {@code max}, each delay stretched by
 * a random factor in {@code [1, 1 + randomFactor]} so competing retries spread out.
 */
public record Backoff(Duration min, Duration max, double randomFactor) {
  public Backoff {
    List<SettingError> errors = new ArrayList<>();
    if (min == null || min.isNegative()) {
      errors.add(new SettingError("backoff.min", min, "must be a duration of 0 or more"));
    }
    if (max == null || max.isNegative() || (min != null && max.compareTo(min) < 0)) {
      errors.add(new SettingError("backoff.max", max, "must be a duration of at least backoff.min"));
    }
    if (!(randomFactor >= 0 && randomFactor <= 1)) {
      errors.add(new SettingError("backoff.random-factor", randomFactor, "must be in 0.0..1.0"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** {@code min} to {@code max}, no randomness. */
  public static Backoff of(Duration min, Duration max) {
    return new Backoff(min, max, 0);
  }

  /** No delay at all. */
  public static Backoff none() {
    return new Backoff(Duration.ZERO, Duration.ZERO, 0);
  }

  /** The delay before retry number {@code step} (1 = the first retry). */
  public Duration delay(int step) {
    if (max.isZero()) {
      return Duration.ZERO;
    }
    long minNanos = min.toNanos();
    long maxNanos = max.toNanos();
    int shift = Math.min(Math.max(step - 1, 0), 62);
    long nanos = minNanos == 0 ? 0 : (minNanos > (maxNanos >> shift) ? maxNanos : Math.min(maxNanos, minNanos << shift));
    if (randomFactor > 0 && nanos > 0) {
      nanos = Math.min(maxNanos, (long) (nanos * (1 + ThreadLocalRandom.current().nextDouble() * randomFactor)));
    }
    return Duration.ofNanos(nanos);
  }
}
