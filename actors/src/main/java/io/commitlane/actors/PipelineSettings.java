package io.commitlane.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.config.PipelineKeys;
import io.commitlane.actors.internal.config.PipelineSettingsReader;
import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code commitlane { ... }} settings of one database, read once when it opens. Each setting is
 * defined once (key, range, doc line: {@code PipelineKeys}, {@code StorageKeys}, {@code LogKeys}),
 * and its default is in {@code reference.conf} only. Construction checks every field against its
 * definition and reports all bad ones together, naming their config paths; reading a config also
 * refuses keys under {@code commitlane} that are not settings (naming the nearest known key).
 * Immutable: each {@code with} method returns a validated copy.
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
    int commitThreads,
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

  public PipelineSettings {
    List<SettingError> errors = new ArrayList<>();
    if (storage == null) {
      errors.add(new SettingError(ROOT, null, "storage settings are required"));
    }
    check(errors, PipelineKeys.COMMIT_THREADS, commitThreads);
    present(errors, PipelineKeys.MODE, mode);
    check(errors, PipelineKeys.COMMIT_QUEUE_CAPACITY, commitQueueCapacity);
    check(errors, PipelineKeys.EXECUTOR_BATCH, executorBatch);
    if (completionDispatcher == null || completionDispatcher.isBlank()) {
      errors.add(new SettingError(path(PipelineKeys.COMPLETION_DISPATCHER), completionDispatcher,
          PipelineKeys.COMPLETION_DISPATCHER.allowed()));
    }
    if (log == null) {
      errors.add(new SettingError(ROOT + ".txlog", null, "log settings are required"));
    }
    check(errors, PipelineKeys.TXLOG_PURGE_INTERVAL, purgeInterval);
    if (writeGroups == null) {
      errors.add(new SettingError(ROOT + ".write-groups", null, "write-group settings are required"));
    } else {
      check(errors, PipelineKeys.WRITE_GROUPS_MAX_MEMBERS, writeGroups.maxMembers());
      check(errors, PipelineKeys.WRITE_GROUPS_MAX_KEYS, writeGroups.maxKeys());
      check(errors, PipelineKeys.WRITE_GROUPS_MAX_BYTES, writeGroups.maxBytes());
    }
    if (requestIds == null) {
      errors.add(new SettingError(ROOT + ".request-ids", null, "request-id settings are required"));
    } else {
      check(errors, PipelineKeys.REQUEST_IDS_WINDOW, requestIds.window());
      check(errors, PipelineKeys.REQUEST_IDS_MAX_IDS, requestIds.maxIds());
      check(errors, PipelineKeys.REQUEST_IDS_PURGE_INTERVAL, requestIds.purgeInterval());
    }
    check(errors, PipelineKeys.EXECUTOR_SPIN, executorSpin);
    if (storage != null && !walEnabled && storage.rocksDbWal().isCustomized()) {
      errors.add(new SettingError(ROOT + ".rocksdb-wal", storage.rocksDbWal(), "its options need RocksDB's WAL on (commitlane.wal = on)"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** The full config path of a setting, as errors name it. */
  private static String path(Setting setting) {
    return ROOT + "." + setting.key();
  }

  private static void check(List<SettingError> errors, Setting setting, long value) {
    setting.check(errors, path(setting), value);
  }

  private static void check(List<SettingError> errors, Setting setting, Duration value) {
    setting.check(errors, path(setting), value);
  }

  private static void present(List<SettingError> errors, Setting setting, Object value) {
    setting.checkPresent(errors, path(setting), value);
  }

  /** The defaults of {@code reference.conf}. */
  public static PipelineSettings defaults() {
    return Defaults.REFERENCE;
  }

  /** Read once, on first use. */
  private static final class Defaults {
    static final PipelineSettings REFERENCE = fromConfig(ConfigFactory.defaultReference());
  }

  /** {@code commit-threads = auto}: min(4, available processors). */
  public static int autoCommitThreads() {
    return Math.min(4, Runtime.getRuntime().availableProcessors());
  }

  /**
   * Read and validate {@code commitlane { ... }} from a config that includes the reference.conf
   * defaults (an actor system's config does). Throws {@link InvalidSettingsException} naming every
   * bad or unknown key.
   */
  public static PipelineSettings fromConfig(Config config) {
    return PipelineSettingsReader.read(config);
  }

  /** These settings with other storage settings (lock buckets, validation, blind writes, RocksDB WAL options and tuning). */
  public PipelineSettings withStorage(CommitlaneSettings storage) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code commit-threads}. */
  public PipelineSettings withCommitThreads(int threads) {
    return new PipelineSettings(storage, threads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code occ-lock-buckets}. */
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

  /** {@code rocksdb { ... }}: compression, write buffers, the process-wide block cache and write-buffer manager. */
  public PipelineSettings withRocksDbTuning(io.commitlane.storage.RocksDbTuning tuning) {
    return withStorage(storage.withRocksDbTuning(tuning));
  }

  /** {@code mode}. */
  public PipelineSettings withMode(PipelineMode mode) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code commit-queue-capacity}. */
  public PipelineSettings withCommitQueueCapacity(int capacity) {
    return new PipelineSettings(storage, commitThreads, mode, capacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code executor-batch}. */
  public PipelineSettings withExecutorBatch(int batch) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, batch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code completion-dispatcher}: the dispatcher path that runs commit callbacks. */
  public PipelineSettings withCompletionDispatcher(String dispatcher) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, dispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code wal}: RocksDB's own write-ahead log on or off. */
  public PipelineSettings withWalEnabled(boolean enabled) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, enabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code txlog { ... }} (all but {@code replay} and {@code purge-interval}): start from {@code LogSettings.defaults()} and its {@code with*} methods. */
  public PipelineSettings withLog(LogSettings log) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code txlog.durability}. */
  public PipelineSettings withLogDurability(Durability durability) {
    return withLog(log.withDurability(durability));
  }

  /** {@code txlog.recovery}: what opening does with a damaged log. */
  public PipelineSettings withLogRecovery(io.commitlane.txlog.RecoveryMode mode) {
    return withLog(log.withRecoveryMode(mode));
  }

  /** {@code txlog.replay}: write each logged commit's writes into its record, for replay after a crash. */
  public PipelineSettings withReplay(boolean replay) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, executorSpin);
  }

  /** {@code txlog.purge-interval}: 0 = never. */
  public PipelineSettings withPurgeInterval(Duration interval) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, interval, writeGroups, requestIds, executorSpin);
  }

  /** {@code write-groups { ... }}. */
  public PipelineSettings withWriteGroups(WriteGroupSettings groups) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, groups, requestIds, executorSpin);
  }

  /** {@code request-ids { ... }}: how long and how many applied request ids a database remembers. */
  public PipelineSettings withRequestIds(RequestIdSettings ids) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, ids, executorSpin);
  }

  /** {@code executor-spin}: how long an executor that ran out of work spins on its thread before it parks. */
  public PipelineSettings withExecutorSpin(Duration spin) {
    return new PipelineSettings(storage, commitThreads, mode, commitQueueCapacity, executorBatch, completionDispatcher, walEnabled,
        log, replay, purgeInterval, writeGroups, requestIds, spin);
  }
}
