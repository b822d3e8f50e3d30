package io.commitlane.actors.stream;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.config.ConfigSection;
import io.commitlane.actors.internal.config.StreamKeys;
import io.commitlane.actors.stream.internal.StreamConfig;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of an ingestion {@link Ingest#sink} or {@link Ingest#flow}. Immutable; each {@code with}
 * method returns a copy. All fields are validated together. Each setting is defined once (key,
 * range, doc line: {@code StreamKeys}); its default and range are written in {@code
 * commitlane.stream.ingest} of {@code reference.conf} only.
 *
 * @param maxRecords records per transaction, at most.
 * @param maxBytes record bytes per transaction, at most (a single heavier record goes alone).
 * @param linger how long a batch may wait to fill while the database could take it. 0 adds no
 *     delay: a batch is committed as soon as the committer has room, and grows only while commits
 *     are in flight (as {@code batchWeighted} does). Above 0, a batch is committed once full or
 *     once its first record has waited this long (as {@code groupedWeightedWithin} does): fewer,
 *     bigger transactions for a trickle.
 * @param parallelism batch transactions in flight, at most. 1 already overlaps collecting the next
 *     batch with committing this one. A batch written by a {@link RecordWriter} that only writes
 *     reads nothing, so batches in flight together never conflict,
 *     under either {@code commitlane.occ-blind-writes} setting, whatever keys they share. More
 *     than 1 helps only when the commit, not the stream's own thread, is the bottleneck (see
 *     docs/streams.md).
 * @param conflictRetry retries of a batch that conflicts with other writers
 * @param failureMode {@link FailureMode#FAIL_STREAM}: stop at the first failed batch and
 *     fail the sink with {@link IngestFailedException}; {@link FailureMode#EMIT}: count it and go on
 */
public record IngestSettings(int maxRecords, long maxBytes, Duration linger, int parallelism, ConflictRetry conflictRetry,
    FailureMode failureMode) {
  /** The section of the actor system's config these settings are read from. */
  public static final String SECTION = StreamConfig.ROOT + ".ingest";

  public IngestSettings {
    List<SettingError> errors = new ArrayList<>();
    StreamKeys.INGEST_MAX_RECORDS.check(errors, field(StreamKeys.INGEST_MAX_RECORDS), maxRecords);
    StreamKeys.INGEST_MAX_BYTES.check(errors, field(StreamKeys.INGEST_MAX_BYTES), maxBytes);
    StreamKeys.INGEST_LINGER.check(errors, field(StreamKeys.INGEST_LINGER), linger);
    StreamKeys.INGEST_PARALLELISM.check(errors, field(StreamKeys.INGEST_PARALLELISM), parallelism);
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

  private static String field(Setting setting) {
    return StreamKeys.field(StreamKeys.INGEST, setting);
  }

  /** The defaults of {@code reference.conf}'s {@code commitlane.stream.ingest}. */
  public static IngestSettings defaults() {
    return Defaults.REFERENCE;
  }

  /** Read once, on first use. */
  private static final class Defaults {
    static final IngestSettings REFERENCE = fromConfig(ConfigFactory.defaultReference());
  }

  /** {@code commitlane.stream.ingest} of the actor system's config. */
  public static IngestSettings fromConfig(ActorSystem<?> system) {
    return fromConfig(system.settings().config());
  }

  /**
   * {@code commitlane.stream.ingest} of {@code config}, which is expected to include {@code
   * reference.conf} (a missing key is an error). Every key is checked before any is used; an
   * {@link InvalidSettingsException} names each bad or unknown key by its full path and range.
   */
  public static IngestSettings fromConfig(Config config) {
    ConfigSection c = StreamConfig.section(config, StreamKeys.INGEST, StreamKeys.ALL.stream()
        .filter(s -> s.key().startsWith(StreamKeys.INGEST + ".")).toList());
    Long maxBytes = (Long) c.read(StreamKeys.INGEST_MAX_BYTES);
    Long maxRecords = (Long) c.read(StreamKeys.INGEST_MAX_RECORDS);
    Duration linger = (Duration) c.read(StreamKeys.INGEST_LINGER);
    Long parallelism = (Long) c.read(StreamKeys.INGEST_PARALLELISM);
    ConflictRetry retry = StreamConfig.conflictRetry(c, StreamKeys.INGEST_RETRY);
    FailureMode mode = c.choice(StreamKeys.INGEST_FAILURE_MODE, FailureMode.values());
    c.throwIfInvalid();
    return new IngestSettings(maxRecords.intValue(), maxBytes, linger, parallelism.intValue(), retry, mode);
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
