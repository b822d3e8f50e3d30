package io.commitlane.txlog.internal.settings;

import io.commitlane.annotation.InternalApi;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * INTERNAL API. One setting of a transaction log: its key under {@code commitlane.txlog} (null for
 * a setting only {@code LogSettings} sets), its name in {@code LogSettings} (the record component,
 * read by {@code maxSegmentBytes()} and set by {@code withMaxSegmentBytes}), what it allows, and a
 * line saying what it is. {@code LogSettings}' constructor checks through these; the actors
 * module's config reader reads {@code commitlane.txlog} through them, and a test compares them with
 * {@code reference.conf} and docs/configuration.md. (txlog imports no storage, so it has its own
 * descriptor type.)
 *
 * @param key the key relative to {@code commitlane} ({@code txlog.max-segment-size}), or null
 * @param javaName the {@code LogSettings} component ({@code maxSegmentBytes})
 * @param unit what a number counts ({@code bytes}, {@code records}), null for a duration or a choice
 * @param range what it allows, as {@code reference.conf} writes it ({@code 4 KiB..1 GiB})
 * @param allowed what it allows, as an error says it (with exact bounds)
 * @param doc one line: what it is
 */
@InternalApi
public record LogKey(String key, String javaName, long min, long max, Duration minDuration, Duration maxDuration,
    List<String> values, String unit, String range, String allowed, String doc) {

  static LogKey number(String key, String javaName, long min, long max, String range, String unit, String doc) {
    String exact = min + ".." + max + " " + unit;
    return new LogKey(key, javaName, min, max, null, null, List.of(), unit, range,
        range.equals(min + ".." + max) ? exact : exact + " (" + range + ")", doc);
  }

  static LogKey duration(String key, String javaName, Duration min, Duration max, String range, String doc) {
    return new LogKey(key, javaName, 0, 0, min, max, List.of(), null, range, range, doc);
  }

  static <E extends Enum<E>> LogKey oneOf(String key, String javaName, E[] values, String doc) {
    List<String> names = java.util.Arrays.stream(values).map(v -> v.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList();
    List<String> upper = java.util.Arrays.stream(values).map(Enum::name).toList();
    return new LogKey(key, javaName, 0, 0, null, null, names, null, String.join(", ", names),
        String.join(", ", upper.subList(0, upper.size() - 1)) + " or " + upper.get(upper.size() - 1), doc);
  }

  /** Whether a number is in range. */
  public boolean allows(long value) {
    return value >= min && value <= max;
  }

  /** Whether a duration is given and in range. */
  public boolean allows(Duration value) {
    return value != null && value.compareTo(minDuration) >= 0 && value.compareTo(maxDuration) <= 0;
  }
}
