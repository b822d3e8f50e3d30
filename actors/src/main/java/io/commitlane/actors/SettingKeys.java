package io.commitlane.actors;

import io.commitlane.actors.internal.ConfigSection;
import java.util.Set;
import java.util.TreeSet;

/**
 * The keys under {@code commitlane { ... }} that this module reads, and the check that refuses
 * any other: a misspelt key would otherwise open with the default it meant to change.
 */
final class SettingKeys {
  /** Every setting of a database, relative to {@code commitlane}. */
  static final Set<String> SETTINGS = Set.of(
      "commit-threads", "occ-lock-buckets", "occ-validation", "occ-blind-writes", "mode", "commit-queue-capacity",
      "executor-batch", "executor-spin", "completion-dispatcher", "wal",
      "write-groups.enabled", "write-groups.max-members", "write-groups.max-keys", "write-groups.max-bytes",
      "rocksdb-wal.manual-flush", "rocksdb-wal.sync-interval", "rocksdb-wal.ack-after-sync", "rocksdb-wal.unordered-write",
      "rocksdb-wal.pipelined-write", "rocksdb-wal.two-write-queues",
      "rocksdb.compression", "rocksdb.write-buffer-size", "rocksdb.max-write-buffers", "rocksdb.block-cache-size",
      "rocksdb.write-buffer-manager-size", "rocksdb.max-open-files", "rocksdb.max-background-jobs", "rocksdb.bloom-filter-bits-per-key",
      "rocksdb.level0-slowdown-writes-trigger", "rocksdb.level0-stop-writes-trigger",
      "rocksdb.soft-pending-compaction-bytes-limit", "rocksdb.hard-pending-compaction-bytes-limit",
      "txlog.durability", "txlog.max-segment-size", "txlog.max-segment-age", "txlog.retention", "txlog.purge-interval",
      "txlog.replay", "txlog.group-commit-max-wait", "txlog.append", "txlog.append-buffer-size", "txlog.completion-ring-slots",
      "txlog.completion-ring-wait", "txlog.recovery",
      "request-ids.window", "request-ids.max-ids", "request-ids.purge-interval");

  /**
   * Sections whose insides are not settings of a database: the dispatchers this module defines
   * (Pekko dispatcher configuration), the cluster and replication modules' own sections, which
   * they validate, and the stream stages' section, which their settings classes validate.
   */
  static final Set<String> SECTIONS = Set.of("commit-dispatcher", "log-dispatcher", "lifecycle-dispatcher", "cluster", "replication",
      "stream");

  /** A section whose keys are store names (checked by {@link RocksDbTuningReader}), not settings. */
  static final String STORE_COMPRESSION = "rocksdb.store-compression";

  private SettingKeys() {}

  /** Add an error for every key of {@code commitlane} (the section itself) that is not known. */
  static void refuseUnknown(ConfigSection commitlane) {
    commitlane.refuseUnknown(key -> SETTINGS.contains(key) || SECTIONS.contains(key.split("\\.", 2)[0])
            || key.startsWith(STORE_COMPRESSION + "."),
        key -> "is not a setting; the nearest known key is " + commitlane.path(nearest(key)));
  }

  /** The known key (or section) closest to {@code key} by edit distance. */
  static String nearest(String key) {
    Set<String> known = new TreeSet<>(SETTINGS);
    known.addAll(SECTIONS);
    return ConfigSection.nearest(key, known);
  }
}
