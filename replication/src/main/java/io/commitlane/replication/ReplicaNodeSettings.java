package io.commitlane.replication;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.replication.internal.config.ReplicationKeys;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import io.commitlane.storage.internal.settings.Setting;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.Objects;

/**
 * How one node hosts replicas.
 *
 * @param self this node's id and Raft address
 * @param directory where its replicas live: one directory per replicated database, each with the
 *     Raft log, the RocksDB database and its snapshots
 * @param electionTimeoutMin a follower that hears nothing from a leader for a random time between
 *     the two timeouts starts an election: failover takes about this long plus one election
 * @param electionTimeoutMax see {@code electionTimeoutMin}; at least 1.5x it, so that two
 *     followers rarely time out together
 * @param snapshotEveryEntries a replica takes a snapshot (a RocksDB checkpoint) after this many
 *     entries, and the Raft log is purged up to it: the log's size stays bounded
 * @param requestTimeout how long a commit or a linearizable read waits for a leader before it fails
 *     with {@link ReplicaUnavailableException}
 * @param rocksDbWal whether each replica's RocksDB writes its own WAL; off by default, since the
 *     Raft log already holds every entry a replica's database may lose in a crash
 * @param logSegmentBytes the size of one Raft log file: the log is purged a whole file at a time,
 *     so after a snapshot it keeps at most about one file of entries below it
 * @param logRetention how long transaction-log records ({@link ReplicatedTransaction#log}) are
 *     kept, measured back from the newest; trimmed when a snapshot is taken; zero keeps them all
 */
public record ReplicaNodeSettings(
    ReplicaPeer self,
    Path directory,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    long snapshotEveryEntries,
    Duration requestTimeout,
    boolean rocksDbWal,
    long logSegmentBytes,
    Duration logRetention) {

  public ReplicaNodeSettings {
    Objects.requireNonNull(self, "self");
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(electionTimeoutMin, "electionTimeoutMin");
    Objects.requireNonNull(electionTimeoutMax, "electionTimeoutMax");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(logRetention, "logRetention");
    List<SettingError> errors = new ArrayList<>();
    long min = electionTimeoutMin.toMillis();
    long max = electionTimeoutMax.toMillis();
    ReplicationKeys.ELECTION_TIMEOUT_MIN.check(errors, ReplicationKeys.path(ReplicationKeys.ELECTION_TIMEOUT_MIN), electionTimeoutMin);
    if (max * 2 < min * 3) {
      errors.add(new SettingError(ReplicationKeys.path(ReplicationKeys.ELECTION_TIMEOUT_MAX), max + " ms",
          ReplicationKeys.ELECTION_TIMEOUT_MAX.range() + " (" + min + " ms)"));
    }
    ReplicationKeys.SNAPSHOT_EVERY_ENTRIES.check(errors, ReplicationKeys.path(ReplicationKeys.SNAPSHOT_EVERY_ENTRIES),
        snapshotEveryEntries);
    if (requestTimeout.toMillis() < max) {
      errors.add(new SettingError(ReplicationKeys.path(ReplicationKeys.REQUEST_TIMEOUT), requestTimeout.toMillis() + " ms",
          ReplicationKeys.REQUEST_TIMEOUT.range() + " (" + max + " ms), or every failover fails the requests it delays"));
    }
    ReplicationKeys.LOG_SEGMENT_SIZE.check(errors, ReplicationKeys.path(ReplicationKeys.LOG_SEGMENT_SIZE), logSegmentBytes);
    ReplicationKeys.LOG_RETENTION.check(errors, ReplicationKeys.path(ReplicationKeys.LOG_RETENTION), logRetention);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  private static final String PATH = "commitlane." + ReplicationKeys.SECTION;

  /**
   * The defaults of {@code reference.conf}: election timeouts 0.5-1 s, a snapshot every 100,000
   * entries, requests wait up to 10 s, RocksDB's WAL off, Raft log files of 8 MiB, transaction-log
   * records kept 3 days.
   */
  public static ReplicaNodeSettings of(ReplicaPeer self, Path directory) {
    return fromConfig(self, directory, ConfigFactory.defaultReference());
  }

  /**
   * The settings under {@code commitlane.replication} in {@code config} (with the defaults of
   * {@code reference.conf} for keys it leaves out).
   *
   * @throws InvalidSettingsException naming every key that is unknown, of the wrong type or out of range
   */
  public static ReplicaNodeSettings fromConfig(ReplicaPeer self, Path directory, Config config) {
    Config c = config.withFallback(ConfigFactory.defaultReference()).getConfig(PATH);
    List<SettingError> errors = new ArrayList<>();
    List<String> keys = ReplicationKeys.ALL.stream().map(ReplicationKeys::local).toList();
    for (String key : c.root().keySet()) {
      if (!keys.contains(key)) {
        errors.add(new SettingError(PATH + "." + key, c.getValue(key).unwrapped(), "not a setting; the settings are " + keys));
      }
    }
    Duration min = read(errors, ReplicationKeys.ELECTION_TIMEOUT_MIN, c::getDuration);
    Duration max = read(errors, ReplicationKeys.ELECTION_TIMEOUT_MAX, c::getDuration);
    Long every = read(errors, ReplicationKeys.SNAPSHOT_EVERY_ENTRIES, c::getLong);
    Duration timeout = read(errors, ReplicationKeys.REQUEST_TIMEOUT, c::getDuration);
    Boolean wal = read(errors, ReplicationKeys.ROCKSDB_WAL, c::getBoolean);
    Long segment = read(errors, ReplicationKeys.LOG_SEGMENT_SIZE, c::getBytes);
    Duration retention = read(errors, ReplicationKeys.LOG_RETENTION, c::getDuration);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return new ReplicaNodeSettings(self, directory, min, max, every, timeout, wal, segment, retention);
  }

  /** The value of {@code setting} as {@code getter} reads its key; null, and an error naming the key, if it cannot. */
  private static <T> T read(List<SettingError> errors, Setting setting, Function<String, T> getter) {
    try {
      return getter.apply(ReplicationKeys.local(setting));
    } catch (ConfigException e) {
      errors.add(new SettingError(ReplicationKeys.path(setting), null, e.getMessage()));
      return null;
    }
  }

  public ReplicaNodeSettings withElectionTimeouts(Duration min, Duration max) {
    return new ReplicaNodeSettings(self, directory, min, max, snapshotEveryEntries, requestTimeout, rocksDbWal, logSegmentBytes, logRetention);
  }

  public ReplicaNodeSettings withSnapshotEveryEntries(long entries) {
    return new ReplicaNodeSettings(self, directory, electionTimeoutMin, electionTimeoutMax, entries, requestTimeout, rocksDbWal, logSegmentBytes, logRetention);
  }

  public ReplicaNodeSettings withRequestTimeout(Duration timeout) {
    return new ReplicaNodeSettings(self, directory, electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, timeout, rocksDbWal, logSegmentBytes, logRetention);
  }

  public ReplicaNodeSettings withRocksDbWal(boolean enabled) {
    return new ReplicaNodeSettings(self, directory, electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, requestTimeout, enabled, logSegmentBytes, logRetention);
  }

  public ReplicaNodeSettings withLogSegmentBytes(long bytes) {
    return new ReplicaNodeSettings(self, directory, electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, requestTimeout, rocksDbWal, bytes, logRetention);
  }

  public ReplicaNodeSettings withLogRetention(Duration retention) {
    return new ReplicaNodeSettings(self, directory, electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, requestTimeout, rocksDbWal,
        logSegmentBytes, retention);
  }
}
