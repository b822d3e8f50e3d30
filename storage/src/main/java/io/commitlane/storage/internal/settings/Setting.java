package io.commitlane.storage.internal.settings;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * INTERNAL API. One setting: its key under {@code commitlane { }} (a persistence plugin's: under
 * the plugin's section), the name of its Java field, what it allows, and a line saying what it is.
 * A settings record checks its fields through these, the config reader reads keys through them,
 * and each module's definitions test compares them with its {@code reference.conf} and the docs
 * page that documents them. Defaults are not here: they are in {@code reference.conf}.
 *
 * <p>{@link #range()} is written as {@code reference.conf} writes it (for example {@code 16..16777216},
 * {@code 1 KiB..1 GiB}, {@code 0..1 ms}); {@link #allowed()} is the sentence an error gives.
 */
@InternalApi
public final class Setting {
  /** How a setting's value is written. */
  public enum Kind {
    INTEGER, SIZE, DURATION, DECIMAL, ONE_OF, FLAG, TEXT
  }

  /** The value of a duration that may be off, as written. */
  public static final String OFF = "off";

  private final String key;
  private final String javaName;
  private final Kind kind;
  private final long min;
  private final long max;
  private final Duration minDuration;
  private final Duration maxDuration;
  private final double minDecimal;
  private final double maxDecimal;
  private final List<String> values;
  private final String range;
  private final String allowed;
  private final String doc;

  private Setting(String key, String javaName, Kind kind, long min, long max, Duration minDuration, Duration maxDuration,
      List<String> values, String range, String allowed, String doc) {
    this(key, javaName, kind, min, max, minDuration, maxDuration, 0, 0, values, range, allowed, doc);
  }

  private Setting(String key, String javaName, Kind kind, long min, long max, Duration minDuration, Duration maxDuration,
      double minDecimal, double maxDecimal, List<String> values, String range, String allowed, String doc) {
    this.key = Objects.requireNonNull(key);
    this.javaName = Objects.requireNonNull(javaName);
    this.kind = kind;
    this.min = min;
    this.max = max;
    this.minDuration = minDuration;
    this.maxDuration = maxDuration;
    this.minDecimal = minDecimal;
    this.maxDecimal = maxDecimal;
    this.values = values;
    this.range = range;
    this.allowed = allowed;
    this.doc = doc;
  }

  /** A whole number in {@code min..max}. */
  public static Setting integer(String key, String javaName, long min, long max, String doc) {
    String range = min + ".." + max;
    return new Setting(key, javaName, Kind.INTEGER, min, max, null, null, List.of(), range, "must be an integer in " + range, doc);
  }

  /** A whole number of at least {@code min}, with no upper bound but the type's (range {@code at least 100}). */
  public static Setting atLeast(String key, String javaName, long min, String doc) {
    String range = "at least " + min;
    return new Setting(key, javaName, Kind.INTEGER, min, Long.MAX_VALUE, null, null, List.of(), range,
        "must be an integer of " + range, doc);
  }

  /**
   * A whole number in {@code min..max}, or {@code special} (which means what {@code specialText}
   * says, for example {@code -1 (unlimited)}).
   */
  public static Setting integerOr(String key, String javaName, long special, String specialText, long min, long max, String doc) {
    String range = min + ".." + max;
    return new Setting(key, javaName, Kind.INTEGER, min, max, null, null, List.of(Long.toString(special)), range,
        "must be " + specialText + " or an integer in " + range, doc);
  }

  /** {@code word} (for example {@code auto}, which means what the doc says) or a whole number in {@code min..max}. */
  public static Setting integerOrWord(String key, String javaName, String word, long min, long max, String doc) {
    String range = min + ".." + max;
    return new Setting(key, javaName, Kind.INTEGER, min, max, null, null, List.of(word), range,
        "must be \"" + word + "\" or an integer in " + range, doc);
  }

  /** A size in bytes in {@code min..max}; {@code range} writes the bounds with units ({@code 1 KiB..1 GiB}). */
  public static Setting size(String key, String javaName, long min, long max, String range, String doc) {
    return new Setting(key, javaName, Kind.SIZE, min, max, null, null, List.of(), range, "must be a size in " + range, doc);
  }

  /** 0 ({@code zeroText}, for example {@code 0 (off)}) or a size in bytes in {@code min..max}. */
  public static Setting sizeOrZero(String key, String javaName, String zeroText, long min, long max, String range, String doc) {
    return new Setting(key, javaName, Kind.SIZE, min, max, null, null, List.of("0"), range,
        "must be " + zeroText + " or a size in " + range, doc);
  }

  /** A duration in {@code min..max}; {@code range} writes the bounds with units ({@code 1 s..30 days}). */
  public static Setting duration(String key, String javaName, Duration min, Duration max, String range, String doc) {
    return new Setting(key, javaName, Kind.DURATION, 0, 0, min, max, List.of(), range, "must be a duration in " + range, doc);
  }

  /**
   * A duration in {@code min..max}, or {@code off} (no duration: the feature is off); {@code range}
   * writes the bounds with units ({@code 1 s..365 days}).
   */
  public static Setting durationOrOff(String key, String javaName, Duration min, Duration max, String range, String doc) {
    return new Setting(key, javaName, Kind.DURATION, 0, 0, min, max, List.of(OFF), range,
        "must be a duration in " + range + ", or off", doc);
  }

  /** Whether a {@link Kind#DURATION} setting may be {@code off}, and {@code raw} (a value as written) says so. */
  public boolean isOff(Object raw) {
    return kind == Kind.DURATION && values.contains(OFF)
        && (Boolean.FALSE.equals(raw) || OFF.equals(raw) || "none".equals(raw));
  }

  /** A number, fractions allowed, in {@code min..max} (written {@code 0.0..1.0}). */
  public static Setting decimal(String key, String javaName, double min, double max, String doc) {
    String range = min + ".." + max;
    return new Setting(key, javaName, Kind.DECIMAL, 0, 0, null, null, min, max, List.of(), range, "must be a number in " + range,
        doc);
  }

  /** One of {@code values}, as written in config (lower case, dashes). */
  public static Setting oneOf(String key, String javaName, List<String> values, String doc) {
    String range = quotedList(values);
    return new Setting(key, javaName, Kind.ONE_OF, 0, 0, null, null, List.copyOf(values), range, "must be " + range, doc);
  }

  /** on or off. */
  public static Setting flag(String key, String javaName, String doc) {
    return new Setting(key, javaName, Kind.FLAG, 0, 0, null, null, List.of(), "on/off", "must be on or off", doc);
  }

  /** Free text; {@code range} says what it must be (for example {@code a dispatcher path}). */
  public static Setting text(String key, String javaName, String range, String doc) {
    return new Setting(key, javaName, Kind.TEXT, 0, 0, null, null, List.of(), range, "must be " + range, doc);
  }

  /** {@code "a"}, {@code "a" or "b"}, {@code "a", "b" or "c"}. */
  public static String quotedList(List<String> values) {
    List<String> quoted = values.stream().map(v -> '"' + v + '"').collect(Collectors.toList());
    if (quoted.size() == 1) {
      return quoted.get(0);
    }
    return String.join(", ", quoted.subList(0, quoted.size() - 1)) + " or " + quoted.get(quoted.size() - 1);
  }

  /** The key relative to {@code commitlane} ({@code occ-lock-buckets}, {@code rocksdb.write-buffer-size}). */
  public String key() {
    return key;
  }

  /** The Java name of the field that holds it ({@code occLockBuckets}, {@code writeBufferSize}). */
  public String javaName() {
    return javaName;
  }

  public Kind kind() {
    return kind;
  }

  /** What it allows, as {@code reference.conf} and the docs write it. */
  public String range() {
    return range;
  }

  /** What it allows, as an error says it ({@code must be an integer in 1..64}). */
  public String allowed() {
    return allowed;
  }

  /** One line: what the setting is. */
  public String doc() {
    return doc;
  }

  /** The values of a {@link Kind#ONE_OF} setting, or the special value of a number that has one. */
  public List<String> values() {
    return values;
  }

  public long min() {
    return min;
  }

  public long max() {
    return max;
  }

  public Duration minDuration() {
    return minDuration;
  }

  public Duration maxDuration() {
    return maxDuration;
  }

  /** Whether a number is allowed (in range, or the special value). */
  public boolean allows(long value) {
    return (value >= min && value <= max) || (!values.isEmpty() && kind != Kind.ONE_OF && values.get(0).equals(Long.toString(value)));
  }

  public double minDecimal() {
    return minDecimal;
  }

  public double maxDecimal() {
    return maxDecimal;
  }

  /** Whether a {@link Kind#DECIMAL} value is allowed (a number in range; NaN is not). */
  public boolean allows(double value) {
    return value >= minDecimal && value <= maxDecimal;
  }

  /** Whether a duration is allowed (not null, in range). */
  public boolean allows(Duration value) {
    return value != null && value.compareTo(minDuration) >= 0 && value.compareTo(maxDuration) <= 0;
  }

  /** Adds an error naming {@code field} (as the caller's errors name fields) if {@code value} is not allowed. */
  public void check(List<SettingError> errors, String field, long value) {
    if (!allows(value)) {
      errors.add(new SettingError(field, value, allowed));
    }
  }

  /** Adds an error naming {@code field} if the {@link Kind#DECIMAL} {@code value} is not allowed. */
  public void check(List<SettingError> errors, String field, double value) {
    if (!allows(value)) {
      errors.add(new SettingError(field, value, allowed));
    }
  }

  /** Adds an error naming {@code field} if {@code value} is null or out of range. */
  public void check(List<SettingError> errors, String field, Duration value) {
    if (!allows(value)) {
      errors.add(new SettingError(field, value, allowed));
    }
  }

  /** Adds an error naming {@code field} if {@code value} is null. */
  public void checkPresent(List<SettingError> errors, String field, Object value) {
    if (value == null) {
      errors.add(new SettingError(field, null, allowed));
    }
  }

  @Override
  public String toString() {
    return key + " (" + javaName + "): " + range;
  }
}
