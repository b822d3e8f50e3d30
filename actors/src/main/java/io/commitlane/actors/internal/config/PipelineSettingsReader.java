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
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.InvalidLogSettingException;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.RecoveryMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code commitlane { ... }} into {@link PipelineSettings}: every key read with its range,
 * every problem collected, and one {@link InvalidSettingsException} naming all of them, so nothing
 * is applied from a half-bad config. {@link PipelineSettings} itself validates what it is built
 * from; this class only turns config values into it.
 */
public final class PipelineSettingsReader {
  private PipelineSettingsReader() {}

  /** See {@link PipelineSettings#fromConfig}. */
  public static PipelineSettings read(Config config) {
    ConfigSection c = new ConfigSection(config, PipelineSettings.ROOT);
    SettingKeys.refuseUnknown(c);
    int threads = c.intOrAuto("commit-threads", CommitlaneSettings.MIN_COMMIT_THREADS, CommitlaneSettings.MAX_COMMIT_THREADS,
        CommitlaneSettings.defaultCommitThreads());
    int buckets = c.intIn("occ-lock-buckets", CommitlaneSettings.MIN_LOCK_BUCKETS, CommitlaneSettings.MAX_LOCK_BUCKETS,
        CommitlaneSettings.DEFAULT_LOCK_BUCKETS);
    OccValidation validation = c.oneOf("occ-validation", OccValidation.values(), OccValidation.PARALLEL);
    BlindWrites blindWrites = c.oneOf("occ-blind-writes", BlindWrites.values(), BlindWrites.CONFLICT);
    PipelineMode mode = c.oneOf("mode", PipelineMode.values(), PipelineMode.THREADS);
    int capacity = c.intIn("commit-queue-capacity", 1, 10_000_000, 4096);
    int batch = c.intIn("executor-batch", 1, 65_536, 256);
    String completion = c.string("completion-dispatcher", "pekko.actor.default-dispatcher", "must be a dispatcher path");
    boolean wal = c.bool("wal", true);
    RocksDbWal rocksDbWal = rocksDbWal(c, wal);
    RocksDbTuning tuning = RocksDbTuningReader.read(c);
    LogSettings log = logSettings(c);
    boolean replay = c.bool("txlog.replay", true);
    Duration purge = c.duration("txlog.purge-interval", Duration.ofHours(1));
    WriteGroupSettings groups = writeGroups(c);
    RequestIdSettings d = RequestIdSettings.defaults();
    Duration window = c.durationIn("request-ids.window", Duration.ofSeconds(1), Duration.ofDays(30), "1 s..30 days", d.window());
    int maxIds = c.intIn("request-ids.max-ids", 1, (int) RequestIdSettings.MAX_IDS, (int) d.maxIds());
    Duration idPurge = c.durationIn("request-ids.purge-interval", Duration.ofMillis(100), Duration.ofDays(1), "100 ms..1 day",
        d.purgeInterval());
    Duration spin = c.duration("executor-spin", PipelineSettings.DEFAULT_EXECUTOR_SPIN);
    c.throwIfInvalid();
    return new PipelineSettings(new CommitlaneSettings(buckets, validation, threads, blindWrites, rocksDbWal, tuning), mode, capacity, batch,
        completion, wal, log, replay, purge, groups, new RequestIdSettings(window, maxIds, idPurge), spin);
  }

  private static WriteGroupSettings writeGroups(ConfigSection c) {
    WriteGroupSettings d = WriteGroupSettings.defaults();
    boolean enabled = c.bool("write-groups.enabled", d.enabled());
    int members = c.intIn("write-groups.max-members", WriteGroupSettings.MIN_MEMBERS, WriteGroupSettings.MAX_MEMBERS, d.maxMembers());
    int keys = c.intIn("write-groups.max-keys", 1, WriteGroupSettings.MAX_KEYS, d.maxKeys());
    Long bytes = c.bytes("write-groups.max-bytes");
    if (bytes != null && (bytes < WriteGroupSettings.MIN_BYTES || bytes > WriteGroupSettings.MAX_BYTES)) {
      c.error("write-groups.max-bytes", c.raw("write-groups.max-bytes"), "must be a size in 1 KiB..1 GiB");
      bytes = null;
    }
    return new WriteGroupSettings(enabled, members, keys, bytes == null ? d.maxBytes() : bytes);
  }

  /** {@code commitlane.rocksdb-wal { ... }}, checked whole and against {@code commitlane.wal}. */
  private static RocksDbWal rocksDbWal(ConfigSection c, boolean walEnabled) {
    boolean manual = c.bool("rocksdb-wal.manual-flush", false);
    Duration interval = c.duration("rocksdb-wal.sync-interval", Duration.ZERO);
    boolean ack = c.bool("rocksdb-wal.ack-after-sync", false);
    boolean unordered = c.bool("rocksdb-wal.unordered-write", false);
    boolean pipelined = c.bool("rocksdb-wal.pipelined-write", false);
    boolean twoQueues = c.bool("rocksdb-wal.two-write-queues", false);
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
        c.error(key, each.value(), each.allowed());
      }
      return RocksDbWal.defaults();
    }
    if (!walEnabled && wal.isCustomized()) {
      c.error("rocksdb-wal", wal, "its options need RocksDB's WAL on (commitlane.wal = on)");
      return RocksDbWal.defaults();
    }
    return wal;
  }

  private static LogSettings logSettings(ConfigSection c) {
    Durability durability = c.oneOf("txlog.durability", Durability.values(), Durability.PROCESS);
    Long segment = c.bytes("txlog.max-segment-size");
    Duration age = c.duration("txlog.max-segment-age", null);
    Duration retention = c.duration("txlog.retention", null);
    Duration wait = c.duration("txlog.group-commit-max-wait", null);
    AppendMode append = c.oneOf("txlog.append", AppendMode.values(), AppendMode.SERIALIZED);
    Long appendBuffer = c.bytes("txlog.append-buffer-size");
    Integer ringSlots = c.has("txlog.completion-ring-slots") ? c.intIn("txlog.completion-ring-slots", 16, 1 << 20, 16384) : null;
    Duration ringWait = c.duration("txlog.completion-ring-wait", null);
    RecoveryMode recovery = c.oneOf("txlog.recovery", RecoveryMode.values(), RecoveryMode.POINT_IN_TIME);
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
        c.error("txlog." + kebab(each.field()), null, each.allowedRange());
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
      default -> camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    };
  }
}
