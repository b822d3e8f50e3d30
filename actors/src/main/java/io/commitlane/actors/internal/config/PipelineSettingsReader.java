package io.commitlane.actors.internal.config;

import com.typesafe.config.Config;
import io.commitlane.actors.PipelineMode;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.RequestIdSettings;
import io.commitlane.actors.WriteGroupSettings;
import io.commitlane.storage.BlindWrites;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.RocksDbTuning;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.storage.internal.settings.StorageKeys;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.InvalidLogSettingException;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.RecoveryMode;
import io.commitlane.txlog.internal.settings.LogKey;
import io.commitlane.txlog.internal.settings.LogKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code commitlane { ... }} into {@link PipelineSettings} through the settings' definitions
 * ({@code PipelineKeys}, {@code StorageKeys}, {@code LogKeys}): every key read and checked against
 * its definition, every problem collected, and one {@link InvalidSettingsException} naming all of
 * them, so nothing is applied from a half-bad config. No default is written here: the config is
 * expected to include {@code reference.conf}, and a missing key is an error naming it.
 */
public final class PipelineSettingsReader {
  private PipelineSettingsReader() {}

  /** See {@link PipelineSettings#fromConfig}. */
  public static PipelineSettings read(Config config) {
    ConfigSection c = new ConfigSection(config, PipelineSettings.ROOT);
    SettingKeys.refuseUnknown(c);
    Object threads = c.read(PipelineKeys.COMMIT_THREADS);
    Long buckets = (Long) c.read(StorageKeys.OCC_LOCK_BUCKETS);
    OccValidation validation = choice(c, StorageKeys.OCC_VALIDATION, OccValidation.values());
    BlindWrites blindWrites = choice(c, StorageKeys.OCC_BLIND_WRITES, BlindWrites.values());
    PipelineMode mode = choice(c, PipelineKeys.MODE, PipelineMode.values());
    Long capacity = (Long) c.read(PipelineKeys.COMMIT_QUEUE_CAPACITY);
    Long batch = (Long) c.read(PipelineKeys.EXECUTOR_BATCH);
    String completion = (String) c.read(PipelineKeys.COMPLETION_DISPATCHER);
    Boolean wal = (Boolean) c.read(PipelineKeys.WAL);
    RocksDbWal rocksDbWal = rocksDbWal(c);
    RocksDbTuning tuning = RocksDbTuningReader.read(c);
    LogSettings log = logSettings(c);
    Boolean replay = (Boolean) c.read(PipelineKeys.TXLOG_REPLAY);
    Duration purge = (Duration) c.read(PipelineKeys.TXLOG_PURGE_INTERVAL);
    WriteGroupSettings groups = writeGroups(c);
    Duration window = (Duration) c.read(PipelineKeys.REQUEST_IDS_WINDOW);
    Long maxIds = (Long) c.read(PipelineKeys.REQUEST_IDS_MAX_IDS);
    Duration idPurge = (Duration) c.read(PipelineKeys.REQUEST_IDS_PURGE_INTERVAL);
    Duration spin = (Duration) c.read(PipelineKeys.EXECUTOR_SPIN);
    c.throwIfInvalid();
    int commitThreads = threads instanceof Long n ? n.intValue() : PipelineSettings.autoCommitThreads();
    return new PipelineSettings(new CommitlaneSettings(buckets.intValue(), validation, blindWrites, rocksDbWal, tuning),
        commitThreads, mode, capacity.intValue(), batch.intValue(), completion, wal, log, replay, purge, groups,
        new RequestIdSettings(window, maxIds, idPurge), spin);
  }

  /** The value of a choice setting whose values are {@code values} written in lower case with dashes. */
  static <E extends Enum<E>> E choice(ConfigSection c, Setting setting, E[] values) {
    String name = (String) c.read(setting);
    return name == null ? null : byName(values, name);
  }

  private static <E extends Enum<E>> E byName(E[] values, String name) {
    for (E v : values) {
      if (v.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(name)) {
        return v;
      }
    }
    throw new IllegalStateException(name + " is a value of its setting's definition but not of " + values[0].getDeclaringClass());
  }

  private static WriteGroupSettings writeGroups(ConfigSection c) {
    Boolean enabled = (Boolean) c.read(PipelineKeys.WRITE_GROUPS_ENABLED);
    Long members = (Long) c.read(PipelineKeys.WRITE_GROUPS_MAX_MEMBERS);
    Long keys = (Long) c.read(PipelineKeys.WRITE_GROUPS_MAX_KEYS);
    Long bytes = (Long) c.read(PipelineKeys.WRITE_GROUPS_MAX_BYTES);
    if (enabled == null || members == null || keys == null || bytes == null) {
      return null;
    }
    return new WriteGroupSettings(enabled, members.intValue(), keys.intValue(), bytes);
  }

  /** {@code commitlane.rocksdb-wal { ... }}, checked whole (its options' combinations). */
  private static RocksDbWal rocksDbWal(ConfigSection c) {
    Boolean manual = (Boolean) c.read(StorageKeys.WAL_MANUAL_FLUSH);
    Duration interval = (Duration) c.read(StorageKeys.WAL_SYNC_INTERVAL);
    Boolean ack = (Boolean) c.read(StorageKeys.WAL_ACK_AFTER_SYNC);
    Boolean unordered = (Boolean) c.read(StorageKeys.WAL_UNORDERED_WRITE);
    Boolean pipelined = (Boolean) c.read(StorageKeys.WAL_PIPELINED_WRITE);
    Boolean twoQueues = (Boolean) c.read(StorageKeys.WAL_TWO_WRITE_QUEUES);
    // The options' combinations are checked even when one of them could not be read (its place
    // then holds RocksDB's default), so that every error is reported at once; nothing built from
    // such a placeholder is returned.
    RocksDbWal d = RocksDbWal.defaults();
    boolean complete = manual != null && interval != null && ack != null && unordered != null && pipelined != null
        && twoQueues != null;
    try {
      RocksDbWal wal = new RocksDbWal(manual != null ? manual : d.manualFlush(), interval != null ? interval : d.syncInterval(),
          ack != null ? ack : d.ackAfterSync(), unordered != null ? unordered : d.unorderedWrite(),
          pipelined != null ? pipelined : d.pipelinedWrite(), twoQueues != null ? twoQueues : d.twoWriteQueues());
      return complete ? wal : null;
    } catch (InvalidSettingsException e) {
      for (SettingError each : e.errors()) {
        Setting setting = StorageKeys.byJavaName(each.field());
        c.error(setting == null ? "rocksdb-wal" : setting.key(), each.value(), each.allowed());
      }
      return null;
    }
  }

  private static LogSettings logSettings(ConfigSection c) {
    Durability durability = logChoice(c, LogKeys.DURABILITY, Durability.values());
    Long segment = (Long) c.read(asSetting(LogKeys.MAX_SEGMENT_SIZE));
    Duration age = (Duration) c.read(asSetting(LogKeys.MAX_SEGMENT_AGE));
    Duration retention = (Duration) c.read(asSetting(LogKeys.RETENTION));
    Duration wait = (Duration) c.read(asSetting(LogKeys.GROUP_COMMIT_MAX_WAIT));
    AppendMode append = logChoice(c, LogKeys.APPEND, AppendMode.values());
    Long appendBuffer = (Long) c.read(asSetting(LogKeys.APPEND_BUFFER_SIZE));
    Long ringSlots = (Long) c.read(asSetting(LogKeys.COMPLETION_RING_SLOTS));
    Duration ringWait = (Duration) c.read(asSetting(LogKeys.COMPLETION_RING_WAIT));
    RecoveryMode recovery = logChoice(c, LogKeys.RECOVERY, RecoveryMode.values());
    // LogSettings' constructor checks what the reader cannot (a power of two) for every value that
    // could be read, so that every error is reported at once: a value that could not be read is
    // replaced by its default there, and nothing built from such a placeholder is returned.
    LogSettings d = LogSettings.defaults();
    boolean complete = durability != null && segment != null && age != null && retention != null && wait != null
        && append != null && appendBuffer != null && ringSlots != null && ringWait != null && recovery != null;
    try {
      LogSettings log = new LogSettings(durability != null ? durability : d.durability(),
          segment != null ? segment : d.maxSegmentBytes(), age != null ? age : d.maxSegmentAge(),
          retention != null ? retention : d.retention(), d.groupCommitMaxBytes(), d.groupCommitMaxRecords(),
          wait != null ? wait : d.groupCommitMaxWait(), d.fileSystem(), d.clock(), d.name(),
          append != null ? append : d.appendMode(), appendBuffer != null ? appendBuffer : d.appendBufferBytes(),
          ringSlots != null ? ringSlots.intValue() : d.completionRingSlots(),
          ringWait != null ? ringWait : d.completionRingWait(), recovery != null ? recovery : d.recoveryMode());
      return complete ? log : null;
    } catch (InvalidLogSettingException e) {
      for (InvalidLogSettingException each : allOf(e)) {
        LogKey key = LogKeys.byJavaName(each.field());
        String configKey = key == null || key.key() == null ? "txlog" : key.key();
        c.error(configKey, c.raw(configKey), each.allowedRange());
      }
      return null;
    }
  }

  private static <E extends Enum<E>> E logChoice(ConfigSection c, LogKey key, E[] values) {
    return choice(c, asSetting(key), values);
  }

  /** A transaction-log setting as the reader reads it (txlog has its own descriptor type: it imports no storage). */
  static Setting asSetting(LogKey k) {
    if (!k.values().isEmpty()) {
      return Setting.oneOf(k.key(), k.javaName(), k.values(), k.doc());
    }
    if (k.minDuration() != null) {
      return Setting.duration(k.key(), k.javaName(), k.minDuration(), k.maxDuration(), k.range(), k.doc());
    }
    if ("bytes".equals(k.unit())) {
      return Setting.size(k.key(), k.javaName(), k.min(), k.max(), k.range(), k.doc());
    }
    return Setting.integer(k.key(), k.javaName(), k.min(), k.max(), k.doc());
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
}
