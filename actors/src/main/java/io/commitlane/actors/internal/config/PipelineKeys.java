package io.commitlane.actors.internal.config;

import io.commitlane.actors.PipelineMode;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * INTERNAL API. The settings the actors module owns ({@code PipelineSettings}, {@code
 * WriteGroupSettings}, {@code RequestIdSettings}), each defined once: key under {@code commitlane},
 * Java field, range and a line of doc. Their defaults are in this module's {@code reference.conf}
 * only. The storage module's settings are in {@code StorageKeys}, the transaction log's in {@code
 * LogKeys}; {@code PipelineSettingsReader} reads all three through these definitions.
 */
@InternalApi
public final class PipelineKeys {
  public static final Setting COMMIT_THREADS = Setting.integerOrWord("commit-threads", "commitThreads", "auto", 1, 64,
      "commit executors per database, each on its own thread; auto = min(4, cores)");
  public static final Setting MODE = Setting.oneOf("mode", "mode",
      Arrays.stream(PipelineMode.values()).map(m -> m.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList(),
      "how commits run");
  public static final Setting COMMIT_QUEUE_CAPACITY = Setting.integer("commit-queue-capacity", "commitQueueCapacity", 1,
      10_000_000, "commits admitted but not yet executed, per database");
  public static final Setting EXECUTOR_BATCH = Setting.integer("executor-batch", "executorBatch", 1, 65_536,
      "commits an executor runs per wake-up before it lets its mailbox in");
  public static final Setting EXECUTOR_SPIN = Setting.duration("executor-spin", "executorSpin", Duration.ZERO,
      Duration.ofMillis(1), "0..1 ms", "how long an executor out of work spins before it parks; 0 = park at once");
  public static final Setting WRITE_GROUPS_ENABLED = Setting.flag("write-groups.enabled", "writeGroups.enabled",
      "merge commits queued together into one RocksDB write");
  public static final Setting WRITE_GROUPS_MAX_MEMBERS = Setting.integer("write-groups.max-members", "writeGroups.maxMembers", 2,
      4096, "commits per write group");
  public static final Setting WRITE_GROUPS_MAX_KEYS = Setting.integer("write-groups.max-keys", "writeGroups.maxKeys", 1, 1 << 20,
      "buffered writes (keys) per write group");
  public static final Setting WRITE_GROUPS_MAX_BYTES = Setting.size("write-groups.max-bytes", "writeGroups.maxBytes", 1024,
      1L << 30, "1 KiB..1 GiB", "key and value bytes per write group");
  public static final Setting COMPLETION_DISPATCHER = Setting.text("completion-dispatcher", "completionDispatcher",
      "a dispatcher path", "where CompletionStage callbacks of commits run");
  public static final Setting WAL = Setting.flag("wal", "walEnabled", "RocksDB's own write-ahead log");
  public static final Setting TXLOG_REPLAY = Setting.flag("txlog.replay", "replay",
      "write each commit's writes into its log record, for replay after a crash");
  public static final Setting TXLOG_PURGE_INTERVAL = Setting.duration("txlog.purge-interval", "purgeInterval", Duration.ZERO,
      Duration.ofSeconds(Long.MAX_VALUE), "0 or more", "how often the transaction-log actor purges expired segments; 0 = never");
  public static final Setting REQUEST_IDS_WINDOW = Setting.duration("request-ids.window", "requestIds.window",
      Duration.ofSeconds(1), Duration.ofDays(30), "1 s..30 days", "how long an applied request id is remembered at least");
  public static final Setting REQUEST_IDS_MAX_IDS = Setting.integer("request-ids.max-ids", "requestIds.maxIds", 1, 100_000_000,
      "request ids remembered per database at most");
  public static final Setting REQUEST_IDS_PURGE_INTERVAL = Setting.duration("request-ids.purge-interval",
      "requestIds.purgeInterval", Duration.ofMillis(100), Duration.ofDays(1), "100 ms..1 day",
      "how often request-id records past the window are deleted");

  /** Every setting above, in reference.conf's order. */
  public static final List<Setting> ALL = List.of(COMMIT_THREADS, MODE, COMMIT_QUEUE_CAPACITY, EXECUTOR_BATCH, EXECUTOR_SPIN,
      WRITE_GROUPS_ENABLED, WRITE_GROUPS_MAX_MEMBERS, WRITE_GROUPS_MAX_KEYS, WRITE_GROUPS_MAX_BYTES, COMPLETION_DISPATCHER, WAL,
      TXLOG_REPLAY, TXLOG_PURGE_INTERVAL, REQUEST_IDS_WINDOW, REQUEST_IDS_MAX_IDS, REQUEST_IDS_PURGE_INTERVAL);

  private PipelineKeys() {}
}
