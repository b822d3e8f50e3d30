package io.commitlane.actors.internal.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * One section of a config, read into a settings class: every value is read with what it allows,
 * and every problem is collected as a {@link SettingError} naming the key's full path. A value
 * that cannot be read gives the fallback, so the rest of the section is still checked, and {@link
 * #throwIfInvalid()} reports them all in one {@link InvalidSettingsException}: nothing is applied
 * from a half-bad config.
 *
 * <p>Shared by the settings readers of the pipeline, the stream stages and the cluster.
 */
@InternalApi
public final class ConfigSection {
  /** The section definitions' keys are relative to. */
  private static final String TOP = "commitlane";
  private final String root;
  /** Null when {@code root} is not a section of settings (reported): every value is then its fallback. */
  private final Config section;
  private final List<SettingError> errors = new ArrayList<>();

  /** The section at {@code root} (a dotted path) of {@code config}. */
  public ConfigSection(Config config, String root) {
    this.root = root;
    Config c = null;
    try {
      c = config.getConfig(root);
    } catch (ConfigException e) {
      errors.add(new SettingError(root, null, "must be a section of settings (" + e.getMessage() + ")"));
    }
    this.section = c;
  }

  /** The section itself (null if it is not one), for checks over all its keys. */
  public Config config() {
    return section;
  }

  /** The full path of {@code key}, as errors name it. */
  public String path(String key) {
    return root + "." + key;
  }

  /** Report a problem with {@code key}; {@code allowed} says what the key takes. */
  public void error(String key, Object value, String allowed) {
    errors.add(new SettingError(path(key), value, allowed));
  }

  /** Report a problem found elsewhere (already named by its full path). */
  public void error(SettingError error) {
    errors.add(error);
  }

  public List<SettingError> errors() {
    return List.copyOf(errors);
  }

  /** Throws {@link InvalidSettingsException} naming every problem reported so far, if there is any. */
  public void throwIfInvalid() {
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /**
   * Report every key of the section that {@code isKnown} refuses, in key order; {@code allowed}
   * says what to write instead (for example the nearest known key). A misspelt key would
   * otherwise leave the default it meant to change.
   */
  public void refuseUnknown(Predicate<String> isKnown, UnaryOperator<String> allowed) {
    if (section == null) {
      return;
    }
    Set<String> unknown = new TreeSet<>();
    for (Map.Entry<String, ConfigValue> e : section.entrySet()) {
      if (!isKnown.test(e.getKey())) {
        unknown.add(e.getKey());
      }
    }
    for (String key : unknown) {
      errors.add(new SettingError(path(key), raw(key), allowed.apply(key)));
    }
  }

  public boolean has(String key) {
    return section != null && section.hasPath(key);
  }

  /** The value as written (for error messages), null if absent or unreadable. */
  public Object raw(String key) {
    try {
      return section != null && section.hasPath(key) ? section.getValue(key).unwrapped() : null;
    } catch (ConfigException e) {
      return null;
    }
  }

  /** A whole number ({@code 4} or {@code "4"}; {@code 4.5} is refused, not cut to 4). */
  public int integer(String key, int fallback) {
    return integerIn(key, Integer.MIN_VALUE, Integer.MAX_VALUE, "must be an integer", fallback);
  }

  public int intIn(String key, int min, int max, int fallback) {
    return integerIn(key, min, max, "must be an integer in " + min + ".." + max, fallback);
  }

  /** {@code "auto"} (giving {@code auto}) or a whole number in {@code min..max}. */
  public int intOrAuto(String key, int min, int max, int auto) {
    if (section != null && "auto".equals(raw(key))) {
      return auto;
    }
    return integerIn(key, min, max, "must be \"auto\" or an integer in " + min + ".." + max, auto);
  }

  private int integerIn(String key, int min, int max, String allowed, int fallback) {
    if (section == null) {
      return fallback;
    }
    Object raw = raw(key);
    Long v = wholeNumber(raw);
    if (v == null || v < min || v > max) {
      errors.add(new SettingError(path(key), raw, allowed));
      return fallback;
    }
    return v.intValue();
  }

  private static Long wholeNumber(Object raw) {
    if (raw instanceof Integer || raw instanceof Long) {
      return ((Number) raw).longValue();
    }
    if (raw instanceof String s) {
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** A size in bytes ({@code 16 MiB}); null (reported) if it is not one. */
  public Long bytes(String key) {
    return read(key, Config::getBytes, null, "must be a size such as 16 MiB");
  }

  public long bytes(String key, long fallback) {
    Long v = bytes(key);
    return v == null ? fallback : v;
  }

  public Duration duration(String key, Duration fallback) {
    return read(key, Config::getDuration, fallback, "must be a duration such as 10 ms");
  }

  /** A duration in {@code min..max}; {@code range} says the range in words (for example "1 s..30 days"). */
  public Duration durationIn(String key, Duration min, Duration max, String range, Duration fallback) {
    Duration d = duration(key, null);
    if (d == null) {
      return fallback;
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      errors.add(new SettingError(path(key), raw(key), "must be a duration in " + range));
      return fallback;
    }
    return d;
  }

  public double decimal(String key, double fallback) {
    return read(key, Config::getDouble, fallback, "must be a number");
  }

  public boolean bool(String key, boolean fallback) {
    return read(key, Config::getBoolean, fallback, "must be on or off");
  }

  /** A string; {@code allowed} says what it must be (for example "must name a dispatcher"). */
  public String string(String key, String fallback, String allowed) {
    return read(key, Config::getString, fallback, allowed);
  }

  /** The value at {@code key} as {@code getter} reads it; the fallback (and an error saying what is {@code allowed}) if it cannot. */
  private <T> T read(String key, BiFunction<Config, String, T> getter, T fallback, String allowed) {
    if (section == null) {
      return fallback;
    }
    try {
      return getter.apply(section, key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), raw(key), allowed));
      return fallback;
    }
  }

  /** One of {@code values}, written in lower case with dashes ({@code FAIL_STREAM} as {@code fail-stream}). */
  public <E extends Enum<E>> E oneOf(String key, E[] values, E fallback) {
    if (section == null) {
      return fallback;
    }
    Object raw = raw(key);
    List<String> names = new ArrayList<>();
    for (E v : values) {
      String name = v.name().toLowerCase(Locale.ROOT).replace('_', '-');
      names.add('"' + name + '"');
      if (name.equals(raw)) {
        return v;
      }
    }
    errors.add(new SettingError(path(key), raw, "must be one of " + String.join(", ", names)));
    return fallback;
  }

  /**
   * The value of a defined setting, read and checked through its definition: a {@code Long} for
   * an integer or a size, a {@code Duration} (or {@link Setting#OFF} for a duration that is off), a
   * {@code Double} for a decimal, a {@code Boolean} for on/off, a {@code String} for a
   * choice (as written) or text. Null, with an error naming the key and what it allows, when the
   * key is missing or its value is not allowed: there is no fallback, a config is expected to
   * include {@code reference.conf}, which holds every default.
   */
  public Object read(Setting setting) {
    if (section == null) {
      return null;
    }
    String key = relative(setting.key());
    Object raw = raw(key);
    Object value = switch (setting.kind()) {
      case INTEGER -> {
        if (raw instanceof String s && setting.values().contains(s.trim())) {
          yield s.trim();
        }
        Long v = wholeNumber(raw);
        yield v != null && setting.allows(v) ? v : null;
      }
      case SIZE -> {
        Long v = read(key, Config::getBytes, null);
        yield v != null && setting.allows(v) ? v : null;
      }
      case DURATION -> {
        if (setting.isOff(raw)) {
          yield Setting.OFF;
        }
        Duration d = read(key, Config::getDuration, null);
        yield setting.allows(d) ? d : null;
      }
      case DECIMAL -> {
        Double d = read(key, Config::getDouble, null);
        yield d != null && setting.allows(d) ? d : null;
      }
      case FLAG -> read(key, Config::getBoolean, null);
      case ONE_OF -> raw instanceof String s && setting.values().contains(s) ? s : null;
      case TEXT -> {
        String s = read(key, Config::getString, null);
        yield s == null || s.isBlank() ? null : s;
      }
    };
    if (value == null) {
      errors.add(new SettingError(path(key), raw, setting.allowed()));
    }
    return value;
  }

  /**
   * The value of a defined choice setting whose values are the names of {@code values} in lower
   * case with dashes ({@code FAIL_STREAM} as {@code fail-stream}); null (reported) as {@link
   * #read(Setting)}.
   */
  public <E extends Enum<E>> E choice(Setting setting, E[] values) {
    String name = (String) read(setting);
    if (name == null) {
      return null;
    }
    for (E v : values) {
      if (v.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(name)) {
        return v;
      }
    }
    throw new IllegalStateException(name + " is a value of " + setting.key() + "'s definition but not of "
        + values[0].getDeclaringClass());
  }

  /**
   * Report every key of the section that is not the key of one of {@code settings}, naming the
   * nearest known key and all of them: a misspelt key would otherwise leave the default it meant
   * to change.
   */
  public void refuseUnknown(List<Setting> settings) {
    Set<String> keys = new TreeSet<>();
    for (Setting s : settings) {
      keys.add(relative(s.key()));
    }
    refuseUnknown(keys::contains, key -> "is not a setting; the nearest known key is " + path(nearest(key, keys))
        + " (known: " + keys + ")");
  }

  /**
   * {@code key} (relative to {@code commitlane}, as definitions write keys) relative to this
   * section: {@code stream.ingest.max-records} in {@code commitlane.stream.ingest} is {@code
   * max-records}.
   */
  public String relative(String key) {
    String prefix = root.equals(TOP) ? "" : root.startsWith(TOP + ".") ? root.substring(TOP.length() + 1) + "." : null;
    if (prefix == null || !key.startsWith(prefix)) {
      throw new IllegalArgumentException(key + " is not a key of " + root);
    }
    return key.substring(prefix.length());
  }

  private <T> T read(String key, BiFunction<Config, String, T> getter, T absent) {
    try {
      return getter.apply(section, key);
    } catch (ConfigException e) {
      return absent;
    }
  }

  /** The key of {@code known} closest to {@code key} by edit distance (the first in order among equals). */
  public static String nearest(String key, java.util.Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : new java.util.TreeSet<>(known)) {
      int d = distance(key, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
