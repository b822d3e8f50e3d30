package io.commitlane.actors.stream;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads one section of {@code commitlane.stream { ... }}: every value is read whatever fails
 * before it, and each error names the full path of its key. A key that is not a setting is
 * refused (it would otherwise leave the default it meant to change).
 */
final class StreamConfig {
  static final String ROOT = "commitlane.stream";

  private final Config section;
  private final String path;
  private final List<SettingError> errors;

  StreamConfig(Config config, String section, Set<String> keys, List<SettingError> errors) {
    this.path = ROOT + "." + section;
    this.errors = errors;
    Config c = null;
    try {
      c = config.getConfig(path);
    } catch (ConfigException e) {
      errors.add(new SettingError(path, null, "must be a section of settings (" + e.getMessage() + ")"));
    }
    this.section = c;
    if (c != null) {
      Set<String> unknown = new TreeSet<>();
      for (Map.Entry<String, ConfigValue> e : c.entrySet()) {
        if (!keys.contains(e.getKey())) {
          unknown.add(e.getKey());
        }
      }
      for (String key : unknown) {
        errors.add(new SettingError(path + "." + key, c.getValue(key).unwrapped(), "is not a setting; known: " + new TreeSet<>(keys)));
      }
    }
  }

  /** The full path of {@code key} in this section, for error messages. */
  String path(String key) {
    return path + "." + key;
  }

  int integer(String key, int fallback) {
    try {
      return section == null ? fallback : section.getInt(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), raw(key), "must be an integer"));
      return fallback;
    }
  }

  long bytes(String key, long fallback) {
    try {
      return section == null ? fallback : section.getBytes(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), raw(key), "must be a size (for example 4 MiB)"));
      return fallback;
    }
  }

  Duration duration(String key, Duration fallback) {
    try {
      return section == null ? fallback : section.getDuration(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), raw(key), "must be a duration (for example 10 ms)"));
      return fallback;
    }
  }

  double decimal(String key, double fallback) {
    try {
      return section == null ? fallback : section.getDouble(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), raw(key), "must be a number"));
      return fallback;
    }
  }

  FailureMode failureMode(String key, FailureMode fallback) {
    String v;
    try {
      v = section == null ? null : section.getString(key);
    } catch (ConfigException e) {
      v = null;
    }
    if (section == null) {
      return fallback;
    }
    if ("emit".equals(v)) {
      return FailureMode.EMIT;
    }
    if ("fail-stream".equals(v)) {
      return FailureMode.FAIL_STREAM;
    }
    errors.add(new SettingError(path(key), raw(key), "must be \"emit\" or \"fail-stream\""));
    return fallback;
  }

  private Object raw(String key) {
    try {
      return section.hasPathOrNull(key) ? (section.getIsNull(key) ? null : section.getValue(key).unwrapped()) : null;
    } catch (ConfigException e) {
      return null;
    }
  }

  /**
   * The conflict-retry keys of this section. Their range errors are reported with full paths; the
   * fallback replaces a bad value so the rest of the section is still checked.
   */
  ConflictRetry conflictRetry(ConflictRetry fallback) {
    int attempts = integer("conflict-retry.max-attempts", fallback.maxAttempts());
    Duration min = duration("conflict-retry.backoff-min", fallback.backoff().min());
    Duration max = duration("conflict-retry.backoff-max", fallback.backoff().max());
    double random = decimal("conflict-retry.backoff-random-factor", fallback.backoff().randomFactor());
    boolean ok = true;
    if (attempts < 1 || attempts > 1000) {
      errors.add(new SettingError(path("conflict-retry.max-attempts"), attempts, "must be an integer in 1..1000"));
      ok = false;
    }
    if (min.isNegative() || min.compareTo(Duration.ofMinutes(1)) > 0) {
      errors.add(new SettingError(path("conflict-retry.backoff-min"), min, "must be a duration in 0..1 minute"));
      ok = false;
    }
    if (max.isNegative() || max.compareTo(Duration.ofMinutes(1)) > 0 || max.compareTo(min) < 0) {
      errors.add(new SettingError(path("conflict-retry.backoff-max"), max, "must be a duration in backoff-min..1 minute"));
      ok = false;
    }
    if (!(random >= 0 && random <= 1)) {
      errors.add(new SettingError(path("conflict-retry.backoff-random-factor"), random, "must be a number in 0.0..1.0"));
      ok = false;
    }
    return ok ? new ConflictRetry(attempts, new Backoff(min, max, random)) : fallback;
  }

  static final Set<String> CONFLICT_RETRY_KEYS = Set.of("conflict-retry.max-attempts", "conflict-retry.backoff-min",
      "conflict-retry.backoff-max", "conflict-retry.backoff-random-factor");
}
