package io.commitlane.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.internal.config.PipelineSettingsReader;
import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.txlog.Durability;
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
      errors.add(new SettingError(ROOT + ".mode", null, "must be \"threads\", \"two-lane\" or \"legacy\""));
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
    return PipelineSettingsReader.read(config);
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

  /** {@code rocksdb { ... }}: compression, write buffers, the process-wide block cache and write-buffer manager. */
  public PipelineSettings withRocksDbTuning(io.commitlane.storage.RocksDbTuning tuning) {
    return withStorage(storage.withRocksDbTuning(tuning));
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

  public int commitThreads() {
    return storage.commitThreads();
  }
}
