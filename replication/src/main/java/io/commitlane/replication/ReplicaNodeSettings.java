package io.commitlane.replication;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
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
    if (min < 50 || min > 60_000) {
      errors.add(new SettingError(PATH + ".election-timeout-min", min + " ms", "50 ms..60 s"));
    }
    if (max * 2 < min * 3) {
      errors.add(new SettingError(PATH + ".election-timeout-max", max + " ms", "at least 1.5x election-timeout-min (" + min + " ms)"));
    }
    if (snapshotEveryEntries < 100) {
      errors.add(new SettingError(PATH + ".snapshot-every-entries", snapshotEveryEntries, "at least 100"));
    }
    if (requestTimeout.toMillis() < max) {
      errors.add(new SettingError(PATH + ".request-timeout", requestTimeout.toMillis() + " ms",
          "at least election-timeout-max (" + max + " ms), or every failover fails the requests it delays"));
    }
    if (logSegmentBytes < 64 * 1024 || logSegmentBytes > 1024L * 1024 * 1024) {
      errors.add(new SettingError(PATH + ".log-segment-size", logSegmentBytes, "64 KiB..1 GiB"));
    }
    if (logRetention.isNegative() || logRetention.compareTo(Duration.ofDays(3650)) > 0) {
      errors.add(new SettingError(PATH + ".log-retention", logRetention, "0 (keep every record)..3650 days"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  private static final String PATH = "commitlane.replication";
  private static final List<String> KEYS = List.of("election-timeout-min", "election-timeout-max",
      "snapshot-every-entries", "request-timeout", "rocksdb-wal", "log-segment-size", "log-retention");

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
    for (String key : c.root().keySet()) {
      if (!KEYS.contains(key)) {
        errors.add(new SettingError(PATH + "." + key, c.getValue(key).unwrapped(), "not a setting; the settings are " + KEYS));
      }
    }
    Duration min = read(errors, "election-timeout-min", () -> c.getDuration("election-timeout-min"));
    Duration max = read(errors, "election-timeout-max", () -> c.getDuration("election-timeout-max"));
    Long every = read(errors, "snapshot-every-entries", () -> c.getLong("snapshot-every-entries"));
    Duration timeout = read(errors, "request-timeout", () -> c.getDuration("request-timeout"));
    Boolean wal = read(errors, "rocksdb-wal", () -> c.getBoolean("rocksdb-wal"));
    Long segment = read(errors, "log-segment-size", () -> c.getBytes("log-segment-size"));
    Duration retention = read(errors, "log-retention", () -> c.getDuration("log-retention"));
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return new ReplicaNodeSettings(self, directory, min, max, every, timeout, wal, segment, retention);
  }

  private static <T> T read(List<SettingError> errors, String key, Supplier<T> value) {
    try {
      return value.get();
    } catch (ConfigException e) {
      errors.add(new SettingError(PATH + "." + key, null, e.getMessage()));
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
