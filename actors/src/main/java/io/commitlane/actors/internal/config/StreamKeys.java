package io.commitlane.actors.internal.config;

import io.commitlane.actors.stream.FailureMode;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * INTERNAL API. The settings of the stream stages ({@code CommitFlowSettings}, {@code
 * IngestSettings}), each defined once: key under {@code commitlane}, Java field (a path through
 * the record's components), range and a line of doc. Their defaults are in this module's {@code
 * reference.conf} only. Both stages have a failure mode and conflict retries of their own, under
 * their own section: {@link #COMMIT_FLOW_RETRY} and {@link #INGEST_RETRY} define the same keys
 * for each.
 */
@InternalApi
public final class StreamKeys {
  /** {@code CommitFlow.ordered} / {@code CommitFlow.unordered}, relative to {@code commitlane}. */
  public static final String COMMIT_FLOW = "stream.commit-flow";
  /** {@code Ingest.sink} / {@code Ingest.flow}, relative to {@code commitlane}. */
  public static final String INGEST = "stream.ingest";

  /** The conflict retries of one stage ({@code ConflictRetry} and its {@code Backoff}). */
  public record RetryKeys(Setting maxAttempts, Setting backoffMin, Setting backoffMax, Setting backoffRandomFactor) {
    static RetryKeys of(String section) {
      String p = section + ".conflict-retry.";
      return new RetryKeys(
          Setting.integer(p + "max-attempts", "conflictRetry.maxAttempts", 1, 1000,
              "attempts of a request whose commit conflicts, each on a fresh transaction"),
          Setting.duration(p + "backoff-min", "conflictRetry.backoff.min", Duration.ZERO, Duration.ofMinutes(1), "0..1 minute",
              "the wait before the first conflict retry"),
          Setting.duration(p + "backoff-max", "conflictRetry.backoff.max", Duration.ZERO, Duration.ofMinutes(1),
              "backoff-min..1 minute", "the longest wait between conflict retries (at least backoff-min)"),
          Setting.decimal(p + "backoff-random-factor", "conflictRetry.backoff.randomFactor", 0.0, 1.0,
              "how far each wait is stretched at random"));
    }

    public List<Setting> all() {
      return List.of(maxAttempts, backoffMin, backoffMax, backoffRandomFactor);
    }
  }

  public static final Setting COMMIT_FLOW_PARALLELISM = Setting.integer(COMMIT_FLOW + ".parallelism", "parallelism", 1, 4096,
      "requests taken from upstream and not yet emitted");
  public static final Setting COMMIT_FLOW_FAILURE_MODE = failureMode(COMMIT_FLOW);
  public static final RetryKeys COMMIT_FLOW_RETRY = RetryKeys.of(COMMIT_FLOW);

  public static final Setting INGEST_MAX_RECORDS = Setting.integer(INGEST + ".max-records", "maxRecords", 1, 1_000_000,
      "records per transaction");
  public static final Setting INGEST_MAX_BYTES = Setting.size(INGEST + ".max-bytes", "maxBytes", 1, 1L << 30, "1 B..1 GiB",
      "record bytes per transaction (a single heavier record goes alone)");
  public static final Setting INGEST_LINGER = Setting.duration(INGEST + ".linger", "linger", Duration.ZERO, Duration.ofHours(1),
      "0..1 hour", "how long a batch may wait to fill");
  public static final Setting INGEST_PARALLELISM = Setting.integer(INGEST + ".parallelism", "parallelism", 1, 64,
      "batch transactions in flight");
  public static final Setting INGEST_FAILURE_MODE = failureMode(INGEST);
  public static final RetryKeys INGEST_RETRY = RetryKeys.of(INGEST);

  /** Every setting above, in reference.conf's order. */
  public static final List<Setting> ALL = all();

  private StreamKeys() {}

  private static Setting failureMode(String section) {
    return Setting.oneOf(section + ".failure-mode", "failureMode",
        Arrays.stream(FailureMode.values()).map(m -> m.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList(),
        "what a request (or batch) that failed for good does to the stream");
  }

  private static List<Setting> all() {
    List<Setting> all = new ArrayList<>(List.of(COMMIT_FLOW_PARALLELISM, COMMIT_FLOW_FAILURE_MODE));
    all.addAll(COMMIT_FLOW_RETRY.all());
    all.addAll(List.of(INGEST_MAX_RECORDS, INGEST_MAX_BYTES, INGEST_LINGER, INGEST_PARALLELISM, INGEST_FAILURE_MODE));
    all.addAll(INGEST_RETRY.all());
    return List.copyOf(all);
  }

  /** The key of {@code setting} relative to {@code section} ({@code max-records} in {@code stream.ingest}), as errors of a record name fields. */
  public static String field(String section, Setting setting) {
    return setting.key().substring(section.length() + 1);
  }
}
