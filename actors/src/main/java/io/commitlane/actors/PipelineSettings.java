package io.commitlane.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.OccValidation;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code commitlane { ... }} settings of one database, read once when it opens. Construction
 * validates every field and reports all bad ones together, naming their config paths.
 */
public record PipelineSettings(
    CommitlaneSettings storage,
    PipelineMode mode,
    int commitQueueCapacity,
    int executorBatch,
    String completionDispatcher,
    boolean walEnabled) {

  public static final String ROOT = "commitlane";

  public PipelineSettings {
    List<SettingError> errors = new ArrayList<>();
    if (storage == null) {
      errors.add(new SettingError(ROOT, null, "storage settings are required"));
    }
    if (mode == null) {
      errors.add(new SettingError(ROOT + ".mode", null, "must be \"threads\" or \"legacy\""));
    }
    if (commitQueueCapacity < 1 || commitQueueCapacity > 10_000_000) {
      errors.add(new SettingError(ROOT + ".commit-queue-capacity", commitQueueCapacity, "must be an integer in 1..10000000"));
    }
    if (executorBatch < 1 || executorBatch > 65_536) {
      errors.add(new SettingError(ROOT + ".executor-batch", executorBatch, "must be an integer in 1..65536"));
    }
    if (completionDispatcher == null || completionDispatcher.isBlank()) {
      errors.add(new SettingError(ROOT + ".completion-dispatcher", completionDispatcher, "must name a dispatcher"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** Read and validate {@code commitlane { ... }} from a config that includes the reference.conf defaults. */
  public static PipelineSettings fromConfig(Config config) {
    Config c = config.getConfig(ROOT);
    List<SettingError> errors = new ArrayList<>();
    int threads = intOrAuto(c, "commit-threads", CommitlaneSettings.MIN_COMMIT_THREADS, CommitlaneSettings.MAX_COMMIT_THREADS,
        CommitlaneSettings.defaultCommitThreads(), errors);
    int buckets = intIn(c, "occ-lock-buckets", CommitlaneSettings.MIN_LOCK_BUCKETS, CommitlaneSettings.MAX_LOCK_BUCKETS,
        CommitlaneSettings.DEFAULT_LOCK_BUCKETS, errors);
    OccValidation validation = oneOf(c, "occ-validation", OccValidation.values(), OccValidation.PARALLEL, errors);
    PipelineMode mode = oneOf(c, "mode", PipelineMode.values(), PipelineMode.THREADS, errors);
    int capacity = intIn(c, "commit-queue-capacity", 1, 10_000_000, 4096, errors);
    int batch = intIn(c, "executor-batch", 1, 65_536, 256, errors);
    String completion = string(c, "completion-dispatcher", "pekko.actor.default-dispatcher", errors);
    boolean wal = bool(c, "wal", true, errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return new PipelineSettings(new CommitlaneSettings(buckets, validation, threads), mode, capacity, batch, completion, wal);
  }

  public int commitThreads() {
    return storage.commitThreads();
  }

  private static String path(String key) {
    return ROOT + "." + key;
  }

  private static int intIn(Config c, String key, int min, int max, int fallback, List<SettingError> errors) {
    Object raw = c.hasPath(key) ? c.getValue(key).unwrapped() : null;
    try {
      long v = c.getLong(key);
      if (v < min || v > max) {
        errors.add(new SettingError(path(key), raw, "must be an integer in " + min + ".." + max));
        return fallback;
      }
      return (int) v;
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), raw, "must be an integer in " + min + ".." + max));
      return fallback;
    }
  }

  private static int intOrAuto(Config c, String key, int min, int max, int auto, List<SettingError> errors) {
    if (c.hasPath(key) && "auto".equals(String.valueOf(c.getValue(key).unwrapped()))) {
      return auto;
    }
    Object raw = c.hasPath(key) ? c.getValue(key).unwrapped() : null;
    try {
      long v = c.getLong(key);
      if (v >= min && v <= max) {
        return (int) v;
      }
    } catch (ConfigException e) {
      // reported below
    }
    errors.add(new SettingError(path(key), raw, "must be \"auto\" or an integer in " + min + ".." + max));
    return auto;
  }

  private static <E extends Enum<E>> E oneOf(Config c, String key, E[] values, E fallback, List<SettingError> errors) {
    Object raw = c.hasPath(key) ? c.getValue(key).unwrapped() : null;
    List<String> names = new ArrayList<>();
    for (E v : values) {
      String name = v.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
      names.add('"' + name + '"');
      if (name.equals(raw)) {
        return v;
      }
    }
    errors.add(new SettingError(path(key), raw, "must be one of " + String.join(", ", names)));
    return fallback;
  }

  private static String string(Config c, String key, String fallback, List<SettingError> errors) {
    try {
      return c.getString(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), c.hasPath(key) ? c.getValue(key).unwrapped() : null, "must be a dispatcher path"));
      return fallback;
    }
  }

  private static boolean bool(Config c, String key, boolean fallback, List<SettingError> errors) {
    try {
      return c.getBoolean(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), c.hasPath(key) ? c.getValue(key).unwrapped() : null, "must be on or off"));
      return fallback;
    }
  }
}
