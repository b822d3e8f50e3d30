package io.commitlane.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.InvalidLogSettingException;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.RecoveryMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code commitlane { ... }} into {@link PipelineSettings}: every key read with its range,
 * every problem collected, and one {@link InvalidSettingsException} naming all of them, so nothing
 * is applied from a half-bad config. {@link PipelineSettings} itself validates what it is built
 * from; this class only turns config values into it.
 */
final class PipelineSettingsReader {
  private static final String ROOT = PipelineSettings.ROOT;

  private PipelineSettingsReader() {}

  /** See {@link PipelineSettings#fromConfig}. */
  static PipelineSettings read(Config config) {
    Config c = config.getConfig(ROOT);
    List<SettingError> errors = new ArrayList<>();
    SettingKeys.refuseUnknown(c, errors);
    int threads = intOrAuto(c, "commit-threads", CommitlaneSettings.MIN_COMMIT_THREADS, CommitlaneSettings.MAX_COMMIT_THREADS,
        CommitlaneSettings.defaultCommitThreads(), errors);
    int buckets = intIn(c, "occ-lock-buckets", CommitlaneSettings.MIN_LOCK_BUCKETS, CommitlaneSettings.MAX_LOCK_BUCKETS,
        CommitlaneSettings.DEFAULT_LOCK_BUCKETS, errors);
    OccValidation validation = oneOf(c, "occ-validation", OccValidation.values(), OccValidation.PARALLEL, errors);
    BlindWrites blindWrites = oneOf(c, "occ-blind-writes", BlindWrites.values(), BlindWrites.CONFLICT, errors);
    PipelineMode mode = oneOf(c, "mode", PipelineMode.values(), PipelineMode.THREADS, errors);
    int capacity = intIn(c, "commit-queue-capacity", 1, 10_000_000, 4096, errors);
    int batch = intIn(c, "executor-batch", 1, 65_536, 256, errors);
    String completion = string(c, "completion-dispatcher", "pekko.actor.default-dispatcher", errors);
    boolean wal = bool(c, "wal", true, errors);
    RocksDbWal rocksDbWal = rocksDbWal(c, wal, errors);
    LogSettings log = logSettings(c, errors);
    boolean replay = bool(c, "txlog.replay", true, errors);
    Duration purge = duration(c, "txlog.purge-interval", Duration.ofHours(1), errors);
    WriteGroupSettings groups = writeGroups(c, errors);
    RequestIdSettings d = RequestIdSettings.defaults();
    Duration window = durationIn(c, "request-ids.window", Duration.ofSeconds(1), Duration.ofDays(30), "1 s..30 days", d.window(),
        errors);
    int maxIds = intIn(c, "request-ids.max-ids", 1, (int) RequestIdSettings.MAX_IDS, (int) d.maxIds(), errors);
    Duration idPurge = durationIn(c, "request-ids.purge-interval", Duration.ofMillis(100), Duration.ofDays(1), "100 ms..1 day",
        d.purgeInterval(), errors);
    Duration spin = duration(c, "executor-spin", PipelineSettings.DEFAULT_EXECUTOR_SPIN, errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return new PipelineSettings(new CommitlaneSettings(buckets, validation, threads, blindWrites, rocksDbWal), mode, capacity, batch,
        completion, wal, log, replay, purge, groups, new RequestIdSettings(window, maxIds, idPurge), spin);
  }

  private static WriteGroupSettings writeGroups(Config c, List<SettingError> errors) {
    WriteGroupSettings d = WriteGroupSettings.defaults();
    boolean enabled = bool(c, "write-groups.enabled", d.enabled(), errors);
    int members = intIn(c, "write-groups.max-members", WriteGroupSettings.MIN_MEMBERS, WriteGroupSettings.MAX_MEMBERS,
        d.maxMembers(), errors);
    int keys = intIn(c, "write-groups.max-keys", 1, WriteGroupSettings.MAX_KEYS, d.maxKeys(), errors);
    Long bytes = bytes(c, "write-groups.max-bytes", errors);
    if (bytes != null && (bytes < WriteGroupSettings.MIN_BYTES || bytes > WriteGroupSettings.MAX_BYTES)) {
      errors.add(new SettingError(path("write-groups.max-bytes"), c.getValue("write-groups.max-bytes").unwrapped(),
          "must be a size in 1 KiB..1 GiB"));
      bytes = null;
    }
    return new WriteGroupSettings(enabled, members, keys, bytes == null ? d.maxBytes() : bytes);
  }

  /** {@code commitlane.rocksdb-wal { ... }}, checked whole and against {@code commitlane.wal}. */
  private static RocksDbWal rocksDbWal(Config c, boolean walEnabled, List<SettingError> errors) {
    boolean manual = bool(c, "rocksdb-wal.manual-flush", false, errors);
    Duration interval = duration(c, "rocksdb-wal.sync-interval", Duration.ZERO, errors);
    boolean ack = bool(c, "rocksdb-wal.ack-after-sync", false, errors);
    boolean unordered = bool(c, "rocksdb-wal.unordered-write", false, errors);
    boolean pipelined = bool(c, "rocksdb-wal.pipelined-write", false, errors);
    boolean twoQueues = bool(c, "rocksdb-wal.two-write-queues", false, errors);
    RocksDbWal wal;
    try {
      wal = new RocksDbWal(manual, interval, ack, unordered, pipelined, twoQueues);
    } catch (InvalidSettingsException e) {
      for (SettingError each : e.errors()) {
        String key = switch (each.field()) {
          case "rocksDbWal.syncInterval" -> "rocksdb-wal.sync-interval";
          case "rocksDbWal.unorderedWrite" -> "rocksdb-wal.unordered-write";
          default -> "rocksdb-wal";
        };
        errors.add(new SettingError(path(key), each.value(), each.allowed()));
      }
      return RocksDbWal.defaults();
    }
    if (!walEnabled && wal.isCustomized()) {
      errors.add(new SettingError(path("rocksdb-wal"), wal, "its options need RocksDB's WAL on (commitlane.wal = on)"));
      return RocksDbWal.defaults();
    }
    return wal;
  }

  private static LogSettings logSettings(Config c, List<SettingError> errors) {
    Durability durability = oneOf(c, "txlog.durability", Durability.values(), Durability.PROCESS, errors);
    Long segment = bytes(c, "txlog.max-segment-size", errors);
    Duration age = duration(c, "txlog.max-segment-age", null, errors);
    Duration retention = duration(c, "txlog.retention", null, errors);
    Duration wait = duration(c, "txlog.group-commit-max-wait", null, errors);
    AppendMode append = oneOf(c, "txlog.append", AppendMode.values(), AppendMode.SERIALIZED, errors);
    Long appendBuffer = bytes(c, "txlog.append-buffer-size", errors);
    Integer ringSlots = c.hasPath("txlog.completion-ring-slots")
        ? intIn(c, "txlog.completion-ring-slots", 16, 1 << 20, 16384, errors) : null;
    Duration ringWait = duration(c, "txlog.completion-ring-wait", null, errors);
    RecoveryMode recovery = oneOf(c, "txlog.recovery", RecoveryMode.values(), RecoveryMode.POINT_IN_TIME, errors);
    LogSettings.Builder b = LogSettings.builder().durability(durability).appendMode(append).recoveryMode(recovery);
    try {
      if (segment != null) {
        b.maxSegmentBytes(segment);
      }
      if (age != null) {
        b.maxSegmentAge(age);
      }
      if (retention != null) {
        b.retention(retention);
      }
      if (wait != null) {
        b.groupCommitMaxWait(wait);
      }
      if (appendBuffer != null) {
        b.appendBufferBytes(appendBuffer);
      }
      if (ringSlots != null) {
        b.completionRingSlots(ringSlots);
      }
      if (ringWait != null) {
        b.completionRingWait(ringWait);
      }
      return b.build();
    } catch (InvalidLogSettingException e) {
      for (InvalidLogSettingException each : allOf(e)) {
        errors.add(new SettingError(path("txlog." + kebab(each.field())), null, each.allowedRange()));
      }
      return LogSettings.defaults();
    }
  }

  private static List<InvalidLogSettingException> allOf(InvalidLogSettingException e) {
    List<InvalidLogSettingException> all = new ArrayList<>();
    all.add(e);
    for (Throwable t : e.getSuppressed()) {
      if (t instanceof InvalidLogSettingException i) {
        all.add(i);
      }
    }
    return all;
  }

  private static String kebab(String camel) {
    return switch (camel) {
      case "maxSegmentBytes" -> "max-segment-size";
      case "appendMode" -> "append";
      case "appendBufferBytes" -> "append-buffer-size";
      default -> camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static Long bytes(Config c, String key, List<SettingError> errors) {
    try {
      return c.getBytes(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), c.hasPath(key) ? c.getValue(key).unwrapped() : null, "must be a size such as 16 MiB"));
      return null;
    }
  }

  private static Duration duration(Config c, String key, Duration fallback, List<SettingError> errors) {
    try {
      return c.getDuration(key);
    } catch (ConfigException e) {
      errors.add(new SettingError(path(key), c.hasPath(key) ? c.getValue(key).unwrapped() : null, "must be a duration such as 1 hour"));
      return fallback;
    }
  }

  private static Duration durationIn(Config c, String key, Duration min, Duration max, String range, Duration fallback,
      List<SettingError> errors) {
    Duration d = duration(c, key, null, errors);
    if (d == null) {
      return fallback;
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      errors.add(new SettingError(path(key), c.getValue(key).unwrapped(), "must be a duration in " + range));
      return fallback;
    }
    return d;
  }


  private static String path(String key) {
    return ROOT + "." + key;
  }

  private static int intIn(Config c, String key, int min, int max, int fallback, List<SettingError> errors) {
    Object raw = c.hasPath(key) ? c.getValue(key).unwrapped() : null;
    Long v = integer(raw);
    if (v == null || v < min || v > max) {
      errors.add(new SettingError(path(key), raw, "must be an integer in " + min + ".." + max));
      return fallback;
    }
    return v.intValue();
  }

  private static int intOrAuto(Config c, String key, int min, int max, int auto, List<SettingError> errors) {
    Object raw = c.hasPath(key) ? c.getValue(key).unwrapped() : null;
    if ("auto".equals(raw)) {
      return auto;
    }
    Long v = integer(raw);
    if (v != null && v >= min && v <= max) {
      return v.intValue();
    }
    errors.add(new SettingError(path(key), raw, "must be \"auto\" or an integer in " + min + ".." + max));
    return auto;
  }

  /**
   * A whole number, as HOCON or a system property writes it ({@code 4}, {@code "4"}); null for
   * anything else, so that {@code 4.5} is refused rather than cut to 4.
   */
  private static Long integer(Object raw) {
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
