package io.commitlane.actors.internal.config;

import io.commitlane.actors.projection.HandlerFailure;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * INTERNAL API. The settings of projections ({@code ProjectionSettings}), each defined once: key
 * under {@code commitlane}, Java field (a path through the record's components), range and a line
 * of doc. Their defaults are in this module's {@code reference.conf} only.
 */
@InternalApi
public final class ProjectionKeys {
  /** {@code commitlane.projection}, relative to {@code commitlane}. */
  public static final String SECTION = "projection";

  /** One backoff of a projection ({@code Backoff}). */
  public record BackoffKeys(Setting min, Setting max, Setting randomFactor) {
    static BackoffKeys of(String name, String javaName, String what) {
      String p = SECTION + "." + name + ".";
      return new BackoffKeys(
          Setting.duration(p + "min", javaName + ".min", Duration.ZERO, Duration.ofHours(1), "0..1 hour",
              "the first wait " + what),
          Setting.duration(p + "max", javaName + ".max", Duration.ZERO, Duration.ofHours(1), name + ".min..1 hour",
              "the longest wait " + what + " (at least min)"),
          Setting.decimal(p + "random-factor", javaName + ".randomFactor", 0.0, 1.0, "how far each wait is stretched at random"));
    }

    public List<Setting> all() {
      return List.of(min, max, randomFactor);
    }
  }

  public static final Setting BATCH_MAX_RECORDS = Setting.integer(SECTION + ".batch.max-records", "maxBatchRecords", 1, 100_000,
      "records per batch (one transaction with the projection's position)");
  public static final Setting BATCH_MAX_WAIT = Setting.duration(SECTION + ".batch.max-wait", "maxBatchWait", Duration.ZERO,
      Duration.ofHours(1), "0..1 hour", "how long a batch that is not full may wait for more records");
  public static final Setting ON_HANDLER_FAILURE = Setting.oneOf(SECTION + ".on-handler-failure", "onHandlerFailure",
      Arrays.stream(HandlerFailure.values()).map(m -> m.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList(),
      "what a handler that throws does to the projection");
  public static final BackoffKeys RESTART_BACKOFF = BackoffKeys.of("restart-backoff", "restartBackoff",
      "before a restart after a failed batch");
  public static final Setting MAX_RESTARTS = Setting.integerOr(SECTION + ".restart-backoff.max-restarts", "maxRestarts", -1,
      "-1 (restart forever)", 0, Integer.MAX_VALUE, "restarts in a row after which the projection stops with the error");
  public static final BackoffKeys CONFLICT_BACKOFF = BackoffKeys.of("conflict-backoff", "conflictBackoff",
      "before reading the stored position again after a conflict or a full commit queue");
  public static final Setting OFFSET_STORE = Setting.text(SECTION + ".offset-store", "offsetStore",
      "a store name (1..255 UTF-8 bytes, no control characters), not \"default\", not starting with \"__commitlane\"",
      "the store holding every projection's position");
  public static final Setting DISPATCHER = Setting.text(SECTION + ".dispatcher", "dispatcher", "a dispatcher path",
      "the dispatcher the runner, its reads and its handler run on");

  /** Every setting above, in reference.conf's order. */
  public static final List<Setting> ALL = all();

  private ProjectionKeys() {}

  private static List<Setting> all() {
    List<Setting> all = new ArrayList<>(List.of(BATCH_MAX_RECORDS, BATCH_MAX_WAIT, ON_HANDLER_FAILURE));
    all.addAll(RESTART_BACKOFF.all());
    all.add(MAX_RESTARTS);
    all.addAll(CONFLICT_BACKOFF.all());
    all.addAll(List.of(OFFSET_STORE, DISPATCHER));
    return List.copyOf(all);
  }

  /** The key of {@code setting} relative to {@code commitlane.projection}, as errors of the record name fields. */
  public static String field(Setting setting) {
    return setting.key().substring(SECTION.length() + 1);
  }
}
