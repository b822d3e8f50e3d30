package io.commitlane.actors.stream;

import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of a {@link CommitFlow}. Immutable; each {@code with} method returns a copy.
 *
 * @param parallelism requests taken from upstream and not yet emitted, at most: commits admitted
 *     or waiting for admission, conflict retries waiting for their backoff and (ordered flow)
 *     outcomes waiting for an earlier one. 1..4096, default 8.
 * @param conflictRetry how conflicts are retried; default {@link ConflictRetry#defaults()}
 * @param admissionBackoff how long to wait before offering again a commit that the full commit
 *     queue did not admit (the stage pulls nothing meanwhile); retried as long as the queue is
 *     full. Default 1 ms doubling to 50 ms, 20% jitter.
 * @param failureMode what a failed request does to the stream; default {@link FailureMode#EMIT}
 */
public record CommitFlowSettings(int parallelism, ConflictRetry conflictRetry, Backoff admissionBackoff, FailureMode failureMode) {
  public static final int MAX_PARALLELISM = 4096;

  public CommitFlowSettings {
    if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
      throw new InvalidSettingsException(List.of(new SettingError("parallelism", parallelism, "must be an integer in 1.." + MAX_PARALLELISM)));
    }
    Objects.requireNonNull(conflictRetry, "conflictRetry");
    Objects.requireNonNull(admissionBackoff, "admissionBackoff");
    Objects.requireNonNull(failureMode, "failureMode");
  }

  public static CommitFlowSettings defaults() {
    return new CommitFlowSettings(8, ConflictRetry.defaults(), defaultAdmissionBackoff(), FailureMode.EMIT);
  }

  static Backoff defaultAdmissionBackoff() {
    return new Backoff(Duration.ofMillis(1), Duration.ofMillis(50), 0.2);
  }

  public CommitFlowSettings withParallelism(int parallelism) {
    return new CommitFlowSettings(parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public CommitFlowSettings withConflictRetry(ConflictRetry conflictRetry) {
    return new CommitFlowSettings(parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public CommitFlowSettings withAdmissionBackoff(Backoff admissionBackoff) {
    return new CommitFlowSettings(parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public CommitFlowSettings withFailureMode(FailureMode failureMode) {
    return new CommitFlowSettings(parallelism, conflictRetry, admissionBackoff, failureMode);
  }
}
