package io.commitlane.bench.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.PipelineMode;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.InvalidSettingsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one place where command-line knobs become {@code commitlane { ... }} settings. Every flag and
 * variant that changes the pipeline goes through here, so a new setting is a line here, not an edit
 * per command.
 *
 * <p>Each override remembers the flag that asked for it. {@link #resolve} refuses, as a usage
 * error naming that flag (exit code 2), a setting this build does not know and a value the
 * build's {@link PipelineSettings} rejects.
 */
public final class PipelineOverrides {
  /** Short keys accepted in a variant's brackets besides config paths, e.g. {@code threads[write-groups=on]}. */
  private static final Map<String, String> ALIASES = Map.of(
      "write-groups", "write-groups.enabled",
      "durability", "txlog.durability",
      "append", "txlog.append");

  private record Override(String path, Object value, String flag) {}

  private final Map<String, Override> values;

  private PipelineOverrides(Map<String, Override> values) {
    this.values = values;
  }

  public static PipelineOverrides none() {
    return new PipelineOverrides(Map.of());
  }

  /** {@code path} is relative to {@code commitlane}, e.g. {@code occ-validation} or {@code txlog.durability}. */
  public PipelineOverrides with(String flag, String path, Object value) {
    Map<String, Override> copy = new LinkedHashMap<>(values);
    String p = ALIASES.getOrDefault(path, path);
    copy.put(p, new Override(p, value, flag));
    return new PipelineOverrides(copy);
  }

  /** This and then {@code later}, whose values win. */
  public PipelineOverrides plus(PipelineOverrides later) {
    Map<String, Override> copy = new LinkedHashMap<>(values);
    copy.putAll(later.values);
    return new PipelineOverrides(copy);
  }

  /** The transaction log's append modes that {@link #mode} also takes: they run threads mode. */
  private static final List<String> APPEND_MODES = List.of("leaderless", "actor");

  /** The names {@code commitlane.mode} accepts in this build: every {@link PipelineMode}, so a new mode needs no change here. */
  public static List<String> pipelineModes() {
    return Arrays.stream(PipelineMode.values()).map(PipelineMode::settingName).toList();
  }

  /** Whether {@link #mode} takes this name: a pipeline mode of this build, or an append mode. */
  public static boolean isModeName(String name) {
    String m = name.trim().toLowerCase(Locale.ROOT);
    return pipelineModes().contains(m) || APPEND_MODES.contains(m);
  }

  /**
   * {@code --mode}: every mode of this build's {@link PipelineMode} (threads, two-lane)
   * set {@code commitlane.mode}; leaderless and actor run threads mode with {@code commitlane.txlog.append} set to
   * that append mode.
   */
  public PipelineOverrides mode(String flag, String mode) {
    String m = mode.trim().toLowerCase(Locale.ROOT);
    if (APPEND_MODES.contains(m)) {
      return with(flag, "mode", "threads").with(flag, "txlog.append", m);
    }
    if (!pipelineModes().contains(m)) {
      String known = String.join(", ", pipelineModes());
      throw Checks.usage(flag + ": unknown mode '" + mode + "'; known: " + known + ", leaderless, actor");
    }
    return with(flag, "mode", m);
  }

  /** {@code --write-groups on|off}: merged write groups. */
  public PipelineOverrides writeGroups(String flag, boolean on) {
    return with(flag, "write-groups.enabled", on);
  }

  /** {@code key=value} from a variant's brackets, e.g. {@code occ-validation=serial}. */
  public PipelineOverrides assignment(String flag, String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0 || eq == assignment.length() - 1) {
      throw Checks.usage(flag + ": '" + assignment + "' is not key=value (a commitlane setting, e.g. occ-validation=serial)");
    }
    String key = assignment.substring(0, eq).trim();
    String value = assignment.substring(eq + 1).trim();
    if (key.equals("mode")) {
      return mode(flag, value);
    }
    return with(flag, key, value);
  }

  boolean isEmpty() {
    return values.isEmpty();
  }

  /** "occ-validation=serial, commit-threads=1", for labels and the JSON. */
  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    values.values().forEach(o -> m.put(o.path(), o.value()));
    return m;
  }

  /**
   * These overrides on top of {@code base} (a config with commitlane's reference.conf), validated
   * by the build's own {@link PipelineSettings#fromConfig}.
   */
  public PipelineSettings resolve(Config base) {
    List<String> unknown = new ArrayList<>();
    for (Override o : values.values()) {
      if (!base.hasPath(PipelineSettings.ROOT + "." + o.path())) {
        unknown.add(o.flag() + ": this build has no setting " + PipelineSettings.ROOT + "." + o.path());
      }
    }
    if (!unknown.isEmpty()) {
      throw Checks.usage(String.join("; ", unknown));
    }
    Map<String, Object> plain = new LinkedHashMap<>();
    values.values().forEach(o -> plain.put(o.path(), o.value()));
    Config overrides = ConfigFactory.parseMap(plain).atPath(PipelineSettings.ROOT);
    try {
      return PipelineSettings.fromConfig(overrides.withFallback(base));
    } catch (InvalidSettingsException e) {
      List<String> why = new ArrayList<>();
      for (InvalidSettingsException.SettingError err : e.errors()) {
        Override o = values.get(err.field().substring(PipelineSettings.ROOT.length() + 1));
        why.add((o == null ? "" : o.flag() + ": ") + err);
      }
      throw Checks.usage(String.join("; ", why));
    }
  }
}
