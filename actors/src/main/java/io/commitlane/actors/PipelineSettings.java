package io.commitlane.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
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
 * The {@code commitlane { ... }} settings of one database, read once when it opens. Construction
 * validates every field and reports all bad ones together, naming their config paths; reading a
 * config also refuses keys under {@code commitlane} that are not settings (naming the nearest
 * known key) and non-integer values of integer settings. Immutable: each {@code with} method
 * returns a validated copy.
 *
 * <pre>{@code
 * PipelineSettings s = PipelineSettings.fromConfig(system.settings().config())
 *     .withCommitThreads(2)
 *     .withCommitQueueCapacity(10_000)
 *     .withLogDurability(Durability.FSYNC);
 * }</pre>
 */
public record PipelineSettings(
    CommitlaneSettings storage,
    PipelineMode mode,
    int commitQueueCapacity,
    int executorBatch,
    String completionDispatcher,
    boolean walEnabled,
    LogSettings log,
    boolean replay,
    Duration purgeInterval,
    WriteGroupSettings writeGroups,
    RequestIdSettings requestIds,
    Duration executorSpin) {

  public static final String ROOT = "commitlane";
  /** The longest {@code executor-spin}. */
  public static final Duration MAX_EXECUTOR_SPIN = Duration.ofMillis(1);
  /** The default {@code executor-spin}. */
  public static final Duration DEFAULT_EXECUTOR_SPIN = Duration.ofNanos(100_000);

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
    if (log == null) {
      errors.add(new SettingError(ROOT + ".txlog", null, "log settings are required"));
    }
    if (purgeInterval == null || purgeInterval.isNegative()) {
      errors.add(new SettingError(ROOT + ".txlog.purge-interval", purgeInterval, "must be a duration of 0 or more"));
    }
    if (writeGroups == null) {
      errors.add(new SettingError(ROOT + ".write-groups", null, "write-group settings are required"));
    }
    if (requestIds == null) {
      errors.add(new SettingError(ROOT + ".request-ids", null, "request-id settings are required"));
    } else {
      if (requestIds.window() == null || requestIds.window().compareTo(Duration.ofSeconds(1)) < 0
          || requestIds.window().compareTo(Duration.ofDays(30)) > 0) {
        errors.add(new SettingError(ROOT + ".request-ids.window", requestIds.window(), "must be a duration in 1 s..30 days"));
      }
      if (requestIds.maxIds() < 1 || requestIds.maxIds() > RequestIdSettings.MAX_IDS) {
        errors.add(new SettingError(ROOT + ".request-ids.max-ids", requestIds.maxIds(), "must be an integer in 1..100000000"));
      }
      if (requestIds.purgeInterval() == null || requestIds.purgeInterval().compareTo(Duration.ofMillis(100)) < 0
          || requestIds.purgeInterval().compareTo(Duration.ofDays(1)) > 0) {
        errors.add(new SettingError(ROOT + ".request-ids.purge-interval", requestIds.purgeInterval(),
            "must be a duration in 100 ms..1 day"));
      }
    }
    if (executorSpin == null || executorSpin.isNegative() || executorSpin.compareTo(MAX_EXECUTOR_SPIN) > 0) {
      errors.add(new SettingError(ROOT + ".executor-spin", executorSpin, "must be a duration in 0..1 ms"));
    }
    if (storage != null && !walEnabled && storage.rocksDbWal().isCustomized()) {
      errors.add(new SettingError(ROOT + ".rocksdb-wal", storage.rocksDbWal(), "its options need RocksDB's WAL on (commitlane.wal = on)"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** Settings with the defaults of {@code request-ids} and {@code executor-spin}. */
  public PipelineSettings(CommitlaneSettings storage, PipelineMode mode, int commitQueueCapacity, int executorBatch,
      String completionDispatcher, boolean walEnabled, LogSettings log, boolean replay, Duration purgeInterval,
      WriteGroupSettings writeGroups) {
    this(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log, replay, purgeInterval, writeGroups,
        RequestIdSettings.defaults(), DEFAULT_EXECUTOR_SPIN);
  }

  /** The defaults of {@code reference.conf}. */
  public static PipelineSettings defaults() {
    return fromConfig(ConfigFactory.defaultReference());
  }

  /**
   * Read and validate {@code commitlane { ... }} from a config that includes the reference.conf
   * defaults (an actor system's config does). Throws {@link InvalidSettingsException} naming every
   * bad or unknown key.
   */
  public static PipelineSettings fromConfig(Config config) {
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
    Duration spin = duration(c, "executor-spin", DEFAULT_EXECUTOR_SPIN, errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return new PipelineSettings(new CommitlaneSettings(buckets, validation, threads, blindWrites, rocksDbWal), mode, capacity, batch,
        completion, wal, log, replay, purge, groups, new RequestIdSettings(window, maxIds, idPurge), spin);
  }

  /** These settings with other storage settings (lock buckets, validation, commit threads, blind writes, RocksDB WAL options). */
  public PipelineSettings withStorage(CommitlaneSettings storage) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code commit-threads}: commit executors of the database, 1..64. */
  public PipelineSettings withCommitThreads(int threads) {
    return withStorage(storage.withCommitThreads(threads));
  }

  /** {@code occ-lock-buckets}: buckets of the version table, 16..16777216. */
  public PipelineSettings withOccLockBuckets(int buckets) {
    return withStorage(storage.withOccLockBuckets(buckets));
  }

  /** {@code occ-validation}. */
  public PipelineSettings withOccValidation(OccValidation validation) {
    return withStorage(storage.withOccValidation(validation));
  }

  /** {@code occ-blind-writes}. */
  public PipelineSettings withOccBlindWrites(BlindWrites blindWrites) {
    return withStorage(storage.withOccBlindWrites(blindWrites));
  }

  /** {@code rocksdb-wal { ... }}: needs the WAL on. */
  public PipelineSettings withRocksDbWal(RocksDbWal wal) {
    return withStorage(storage.withRocksDbWal(wal));
  }

  /** {@code mode}. */
  public PipelineSettings withMode(PipelineMode mode) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code commit-queue-capacity}: commits admitted and not yet executed, 1..10000000. */
  public PipelineSettings withCommitQueueCapacity(int capacity) {
    return new PipelineSettings(storage, mode, capacity, executorBatch, completionDispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code executor-batch}: commits an executor runs per wake-up, 1..65536. */
  public PipelineSettings withExecutorBatch(int batch) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, batch, completionDispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code completion-dispatcher}: the dispatcher path that runs commit callbacks. */
  public PipelineSettings withCompletionDispatcher(String dispatcher) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, dispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code wal}: RocksDB's own write-ahead log on or off. */
  public PipelineSettings withWalEnabled(boolean enabled) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, enabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code txlog { ... }} (all but {@code replay} and {@code purge-interval}): build one with {@code LogSettings.builder()}. */
  public PipelineSettings withLog(LogSettings log) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code txlog.durability}. */
  public PipelineSettings withLogDurability(Durability durability) {
    return withLog(log.toBuilder().durability(durability).build());
  }

  /** {@code txlog.recovery}: what opening does with a damaged log. */
  public PipelineSettings withLogRecovery(io.commitlane.txlog.RecoveryMode mode) {
    return withLog(log.toBuilder().recoveryMode(mode).build());
  }

  /** {@code txlog.replay}: write each logged commit's writes into its record, for replay after a crash. */
  public PipelineSettings withReplay(boolean replay) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log, replay,
        purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code txlog.purge-interval}: 0 = never. */
  public PipelineSettings withPurgeInterval(Duration interval) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log, replay,
        interval, writeGroups, requestIds, executorSpin);
  }

  /** {@code write-groups { ... }}. */
  public PipelineSettings withWriteGroups(WriteGroupSettings groups) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log,
        replay, purgeInterval, groups, requestIds, executorSpin);
  }

  /** {@code request-ids { ... }}: how long and how many applied request ids a database remembers. */
  public PipelineSettings withRequestIds(RequestIdSettings ids) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log,
        replay, purgeInterval, writeGroups, ids, executorSpin);
  }

  /**
   * {@code executor-spin}: how long an executor that ran out of work spins on its thread before it
   * parks, while commits keep arriving (0..1 ms; 0 = park at once).
   */
  public PipelineSettings withExecutorSpin(Duration spin) {
    return new PipelineSettings(storage, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled, log,
        replay, purgeInterval, writeGroups, requestIds, spin);
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

  public int commitThreads() {
    return storage.commitThreads();
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
