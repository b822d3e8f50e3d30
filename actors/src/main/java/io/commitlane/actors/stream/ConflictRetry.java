package io.commitlane.actors.stream;

import io.commitlane.storage.Database;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a stream stage retries a request whose commit failed validation ({@link
 * io.commitlane.storage.ConflictException}): at most {@code maxAttempts} attempts in all, each
 * retry on a fresh transaction (fresh snapshot) after {@code backoff}. Other failures are not
 * retried.
 */
public record ConflictRetry(int maxAttempts, Backoff backoff) {
  public ConflictRetry {
    if (maxAttempts < 1) {
      throw new InvalidSettingsException(List.of(new SettingError("conflict-retry.max-attempts", maxAttempts, "must be 1 or more")));
    }
    Objects.requireNonNull(backoff, "backoff");
  }

  /** One attempt: a conflict is the outcome. */
  public static ConflictRetry none() {
    return new ConflictRetry(1, Backoff.none());
  }

  /**
   * {@link Database#DEFAULT_MAX_RETRIES} retries (4 attempts), 1 ms doubling to 100 ms, 20% jitter:
   * the same retry budget as {@code Database.transact}.
   */
  public static ConflictRetry defaults() {
    return new ConflictRetry(Database.DEFAULT_MAX_RETRIES + 1, new Backoff(Duration.ofMillis(1), Duration.ofMillis(100), 0.2));
  }

  public static ConflictRetry attempts(int maxAttempts, Backoff backoff) {
    return new ConflictRetry(maxAttempts, backoff);
  }
}
