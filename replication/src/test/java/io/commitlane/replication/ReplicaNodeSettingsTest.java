package io.commitlane.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.InvalidSettingsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaNodeSettingsTest {
  private static final ReplicaPeer SELF = new ReplicaPeer("n0", "127.0.0.1", 7000);
  private static final Path DIR = Path.of("replica");

  @Test
  void theDefaultsComeFromReferenceConf() {
    ReplicaNodeSettings s = ReplicaNodeSettings.of(SELF, DIR);
    assertEquals(Duration.ofMillis(500), s.electionTimeoutMin());
    assertEquals(Duration.ofSeconds(1), s.electionTimeoutMax());
    assertEquals(100_000, s.snapshotEveryEntries());
    assertEquals(Duration.ofSeconds(10), s.requestTimeout());
    assertFalse(s.rocksDbWal());
    assertEquals(8L * 1024 * 1024, s.logSegmentBytes());
  }

  @Test
  void aConfigOverridesTheKeysItNames() {
    ReplicaNodeSettings s = ReplicaNodeSettings.fromConfig(SELF, DIR, ConfigFactory.parseString(
        "commitlane.replication { election-timeout-min = 200ms, election-timeout-max = 400ms, rocksdb-wal = on }"));
    assertEquals(Duration.ofMillis(200), s.electionTimeoutMin());
    assertEquals(Duration.ofMillis(400), s.electionTimeoutMax());
    assertEquals(true, s.rocksDbWal());
    assertEquals(100_000, s.snapshotEveryEntries());
  }

  @Test
  void everyBadKeyIsNamedAtOnceAndNothingIsBuilt() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> ReplicaNodeSettings.fromConfig(SELF, DIR,
        ConfigFactory.parseString("commitlane.replication { election-timout-min = 1s, snapshot-every-entries = many, "
            + "log-segment-size = 1KiB }")));
    assertEquals(List.of("commitlane.replication.election-timout-min", "commitlane.replication.snapshot-every-entries"), e.fields());

    InvalidSettingsException ranges = assertThrows(InvalidSettingsException.class, () -> ReplicaNodeSettings.fromConfig(SELF, DIR,
        ConfigFactory.parseString("commitlane.replication { election-timeout-min = 1s, election-timeout-max = 1s, "
            + "request-timeout = 500ms, log-segment-size = 1KiB }")));
    assertEquals(List.of("commitlane.replication.election-timeout-max", "commitlane.replication.request-timeout",
        "commitlane.replication.log-segment-size"), ranges.fields());
  }

  @Test
  void peersAndGroupsNameEveryBadField() {
    InvalidSettingsException peer = assertThrows(InvalidSettingsException.class, () -> new ReplicaPeer("bad id", " ", 0));
    assertEquals(List.of("id", "host", "port"), peer.fields());
    InvalidSettingsException group = assertThrows(InvalidSettingsException.class,
        () -> ReplicationGroup.of("db", SELF, new ReplicaPeer("n0", "127.0.0.1", 7001)));
    assertEquals(List.of("voters"), group.fields());
  }
}
