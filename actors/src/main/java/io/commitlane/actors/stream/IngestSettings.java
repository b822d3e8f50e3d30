package io.commitlane.actors.stream;

import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of an ingestion {@link Ingest#sink} or {@link Ingest#flow}. Immutable; each {@code with}
 * method returns a copy. All fields are validated together.
 *
 * @param maxRecords records per transaction, at most. 1..1,000,000, default 1,000.
 * @param maxBytes record bytes per transaction, at most (a single heavier record goes alone).
 *     1..1 GiB, default 4 MiB.
 * @param linger how long a batch may wait to fill while the database could take it. 0 (the
 *     default) adds no delay: a batch is committed as soon as the committer has room, and grows
 *     only while commits are in flight (as {@code batchWeighted} does). Above 0, a batch is
 *     committed once full or once its first record has waited this long (as {@code
 *     groupedWeightedWithin} does): fewer, bigger transactions for a trickle. 0..1 hour.
 * @param parallelism batch transactions in flight, at most. 1..64, default 1, which already
 *     overlaps collecting the next batch with committing this one. A batch reads nothing, so
 *     batches in flight together never conflict (under either {@code commitlane.occ-blind-writes}
 *     setting); 2 also overlaps building a batch's transaction with the previous commit and uses
 *     a second commit thread.
 * @param conflictRetry retries of a batch that conflicts with other writers; default {@link ConflictRetry#defaults()}
 * @param admissionBackoff the wait before offering again a batch the full commit queue refused
 * @param failureMode {@link FailureMode#FAIL_STREAM} (default): stop at the first failed batch and
 *     fail the sink with {@link IngestFailedException}; {@link FailureMode#EMIT}: count it and go on
 */
public record IngestSettings(int maxRecords, long maxBytes, Duration linger, int parallelism, ConflictRetry conflictRetry,
    Backoff admissionBackoff, FailureMode failureMode) {

  public IngestSettings {
    List<SettingError> errors = new ArrayList<>();
    if (maxRecords < 1 || maxRecords > 1_000_000) {
      errors.add(new SettingError("max-records", maxRecords, "must be an integer in 1..1000000"));
    }
    if (maxBytes < 1 || maxBytes > (1L << 30)) {
      errors.add(new SettingError("max-bytes", maxBytes, "must be a size in 1 B..1 GiB"));
    }
    if (linger == null || linger.isNegative() || linger.compareTo(Duration.ofHours(1)) > 0) {
      errors.add(new SettingError("linger", linger, "must be a duration in 0..1 hour"));
    }
    if (parallelism < 1 || parallelism > 64) {
      errors.add(new SettingError("parallelism", parallelism, "must be an integer in 1..64"));
    }
    if (conflictRetry == null) {
      errors.add(new SettingError("conflict-retry", null, "is required"));
    }
    if (admissionBackoff == null) {
      errors.add(new SettingError("admission-backoff", null, "is required"));
    }
    if (failureMode == null) {
      errors.add(new SettingError("failure-mode", null, "must be EMIT or FAIL_STREAM"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  public static IngestSettings defaults() {
    return new IngestSettings(1_000, 4L << 20, Duration.ZERO, 1, ConflictRetry.defaults(), CommitFlowSettings.defaultAdmissionBackoff(),
        FailureMode.FAIL_STREAM);
  }

  public IngestSettings withMaxRecords(int maxRecords) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public IngestSettings withMaxBytes(long maxBytes) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public IngestSettings withLinger(Duration linger) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public IngestSettings withParallelism(int parallelism) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public IngestSettings withConflictRetry(ConflictRetry conflictRetry) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public IngestSettings withAdmissionBackoff(Backoff admissionBackoff) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  public IngestSettings withFailureMode(FailureMode failureMode) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, admissionBackoff, failureMode);
  }

  /** The settings of the committer behind the sink. */
  CommitFlowSettings commitFlowSettings() {
    return new CommitFlowSettings(parallelism, conflictRetry, admissionBackoff, failureMode);
  }
}
