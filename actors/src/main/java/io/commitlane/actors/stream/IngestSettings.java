package io.commitlane.actors.stream;

import com.typesafe.config.Config;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.stream.internal.StreamConfig;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of an ingestion {@link Ingest#sink} or {@link Ingest#flow}. Immutable; each {@code with}
 * method returns a copy. All fields are validated together. The defaults are those of {@code
 * commitlane.stream.ingest} in {@code reference.conf}.
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
 *     overlaps collecting the next batch with committing this one. A batch written by a {@link
 *     RecordWriter} that only writes reads nothing, so batches in flight together never conflict,
 *     under either {@code commitlane.occ-blind-writes} setting, whatever keys they share. More
 *     than 1 helps only when the commit, not the stream's own thread, is the bottleneck (see
 *     docs/streams.md).
 * @param conflictRetry retries of a batch that conflicts with other writers; default {@link ConflictRetry#defaults()}
 * @param failureMode {@link FailureMode#FAIL_STREAM} (default): stop at the first failed batch and
 *     fail the sink with {@link IngestFailedException}; {@link FailureMode#EMIT}: count it and go on
 */
public record IngestSettings(int maxRecords, long maxBytes, Duration linger, int parallelism, ConflictRetry conflictRetry,
    FailureMode failureMode) {
  /** The section of the actor system's config these settings are read from. */
  public static final String SECTION = StreamConfig.ROOT + ".ingest";

  public IngestSettings {
    List<SettingError> errors = new ArrayList<>();
    check("", maxRecords, maxBytes, linger, parallelism, errors);
    if (conflictRetry == null) {
      errors.add(new SettingError("conflict-retry", null, "is required"));
    }
    if (failureMode == null) {
      errors.add(new SettingError("failure-mode", null, "must be EMIT or FAIL_STREAM"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  private static void check(String prefix, int maxRecords, long maxBytes, Duration linger, int parallelism, List<SettingError> errors) {
    if (maxRecords < 1 || maxRecords > 1_000_000) {
      errors.add(new SettingError(prefix + "max-records", maxRecords, "must be an integer in 1..1000000"));
    }
    if (maxBytes < 1 || maxBytes > (1L << 30)) {
      errors.add(new SettingError(prefix + "max-bytes", maxBytes, "must be a size in 1 B..1 GiB"));
    }
    if (linger == null || linger.isNegative() || linger.compareTo(Duration.ofHours(1)) > 0) {
      errors.add(new SettingError(prefix + "linger", linger, "must be a duration in 0..1 hour"));
    }
    if (parallelism < 1 || parallelism > 64) {
      errors.add(new SettingError(prefix + "parallelism", parallelism, "must be an integer in 1..64"));
    }
  }

  /** The built-in defaults (the same as {@code reference.conf}'s). */
  public static IngestSettings defaults() {
    return new IngestSettings(1_000, 4L << 20, Duration.ZERO, 1, ConflictRetry.defaults(), FailureMode.FAIL_STREAM);
  }

  /** {@code commitlane.stream.ingest} of the actor system's config. */
  public static IngestSettings fromConfig(ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /**
   * {@code commitlane.stream.ingest} of {@code config}. Every key is checked before any is used;
   * an {@link InvalidSettingsException} names each bad or unknown key by its full path and range.
   */
  public static IngestSettings fromConfig(Config config) {
    ConfigSection c = StreamConfig.section(config, "ingest", Set.of("max-records", "max-bytes", "linger", "parallelism"));
    IngestSettings d = defaults();
    int maxRecords = c.integer("max-records", d.maxRecords());
    long maxBytes = c.bytes("max-bytes", d.maxBytes());
    Duration linger = c.duration("linger", d.linger());
    int parallelism = c.integer("parallelism", d.parallelism());
    List<SettingError> ranges = new ArrayList<>();
    check(SECTION + ".", maxRecords, maxBytes, linger, parallelism, ranges);
    ranges.forEach(c::error);
    ConflictRetry retry = StreamConfig.conflictRetry(c, d.conflictRetry());
    FailureMode mode = StreamConfig.failureMode(c, d.failureMode());
    c.throwIfInvalid();
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, retry, mode);
  }

  public IngestSettings withMaxRecords(int maxRecords) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, failureMode);
  }

  public IngestSettings withMaxBytes(long maxBytes) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, failureMode);
  }

  public IngestSettings withLinger(Duration linger) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, failureMode);
  }

  public IngestSettings withParallelism(int parallelism) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, failureMode);
  }

  public IngestSettings withConflictRetry(ConflictRetry conflictRetry) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, failureMode);
  }

  public IngestSettings withFailureMode(FailureMode failureMode) {
    return new IngestSettings(maxRecords, maxBytes, linger, parallelism, conflictRetry, failureMode);
  }

  /** The settings of the committer behind the sink. */
  CommitFlowSettings commitFlowSettings() {
    return new CommitFlowSettings(parallelism, conflictRetry, failureMode);
  }
}
