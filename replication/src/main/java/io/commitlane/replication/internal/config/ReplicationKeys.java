package io.commitlane.replication.internal.config;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.settings.Setting;
import java.time.Duration;
import java.util.List;

/**
 * INTERNAL API. The settings of {@code commitlane.replication} ({@code ReplicaNodeSettings}), each
 * defined once: key under {@code commitlane}, Java field, range and a line of doc. Their defaults
 * are in this module's {@code reference.conf} only. Two ranges depend on another key (the election
 * timeouts' ratio, the request timeout's floor): their range says so, and the record checks them.
 */
@InternalApi
public final class ReplicationKeys {
  /** {@code commitlane.replication}, relative to {@code commitlane}. */
  public static final String SECTION = "replication";
  private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  public static final Setting ELECTION_TIMEOUT_MIN = Setting.duration(SECTION + ".election-timeout-min", "electionTimeoutMin",
      Duration.ofMillis(50), Duration.ofSeconds(60), "50 ms..60 s",
      "the shortest time a follower hears no leader before it starts an election");
  public static final Setting ELECTION_TIMEOUT_MAX = Setting.duration(SECTION + ".election-timeout-max", "electionTimeoutMax",
      Duration.ZERO, FOREVER, "at least 1.5x election-timeout-min",
      "the longest time a follower hears no leader before it starts an election");
  public static final Setting SNAPSHOT_EVERY_ENTRIES = Setting.atLeast(SECTION + ".snapshot-every-entries",
      "snapshotEveryEntries", 100, "log entries between a replica's snapshots");
  public static final Setting REQUEST_TIMEOUT = Setting.duration(SECTION + ".request-timeout", "requestTimeout", Duration.ZERO,
      FOREVER, "at least election-timeout-max", "how long a commit or a linearizable read waits for a leader");
  public static final Setting ROCKSDB_WAL = Setting.flag(SECTION + ".rocksdb-wal", "rocksDbWal",
      "whether each replica's RocksDB writes its own WAL");
  public static final Setting LOG_SEGMENT_SIZE = Setting.size(SECTION + ".log-segment-size", "logSegmentBytes", 64 * 1024,
      1024L * 1024 * 1024, "64 KiB..1 GiB", "the size of one Raft log file");
  public static final Setting LOG_RETENTION = Setting.duration(SECTION + ".log-retention", "logRetention", Duration.ZERO,
      Duration.ofDays(3650), "0..3650 days", "how long transaction-log records are kept, back from the newest");

  /** Every setting above, in reference.conf's order. */
  public static final List<Setting> ALL = List.of(ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MAX, SNAPSHOT_EVERY_ENTRIES,
      REQUEST_TIMEOUT, ROCKSDB_WAL, LOG_SEGMENT_SIZE, LOG_RETENTION);

  private ReplicationKeys() {}

  /** The full path of {@code setting} ({@code commitlane.replication.log-retention}), as errors name it. */
  public static String path(Setting setting) {
    return "commitlane." + setting.key();
  }

  /** The key of {@code setting} inside {@code commitlane.replication} ({@code log-retention}). */
  public static String local(Setting setting) {
    return setting.key().substring(SECTION.length() + 1);
  }
}
