package io.commitlane.replication;

import io.commitlane.replication.internal.apply.Directories;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults under a running workload of exactly-once commits (request ids, resent through any
 * replica until acknowledged). After each history: every replica holds the same data, every
 * acknowledged commit is there, and each client's counter equals its acknowledged commits (none
 * lost, none applied twice).
 */
class ReplicationFailoverTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void stoppingTheLeaderLosesNoAcknowledgedCommitAndTheOldLeaderCatchesUp() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3)) {
      CommitWorkload load = new CommitWorkload(cluster, 4);
      try {
        load.awaitMore(200, WAIT.toMillis());
        int leader = cluster.awaitLeader(WAIT);
        cluster.stop(leader);
        load.awaitMore(200, WAIT.toMillis()); // the two survivors elected a leader and go on
        int next = cluster.awaitLeader(WAIT);
        assertNotEquals(leader, next);
        cluster.start(leader);
        load.awaitMore(200, WAIT.toMillis());
      } finally {
        load.close();
      }
      assertConsistent(cluster, load);
    }
  }

  @Test
  void fiveVotersGoOnWithTwoNodesStoppedAndLoseNoAcknowledgedCommit() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 5)) {
      CommitWorkload load = new CommitWorkload(cluster, 4);
      try {
        load.awaitMore(100, WAIT.toMillis());
        int first = cluster.awaitLeader(WAIT);
        cluster.stop(first);
        load.awaitMore(100, WAIT.toMillis());
        int second = cluster.awaitLeader(WAIT);
        assertNotEquals(first, second);
        cluster.stop(second);
        load.awaitMore(100, WAIT.toMillis()); // three of five are a majority
        cluster.start(first);
        cluster.start(second);
        load.awaitMore(100, WAIT.toMillis());
      } finally {
        load.close();
      }
      assertConsistent(cluster, load);
    }
  }

  @Test
  void restartingEveryNodeKeepsEveryAcknowledgedCommit() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3)) {
      CommitWorkload load = new CommitWorkload(cluster, 3);
      try {
        load.awaitMore(150, WAIT.toMillis());
        cluster.stopAll();
        for (int i = 0; i < 3; i++) {
          cluster.start(i);
        }
        load.awaitMore(150, WAIT.toMillis());
      } finally {
        load.close();
      }
      assertConsistent(cluster, load);
    }
  }

  @Test
  void aReplicaRestartedWithAnEmptyDirectoryCatchesUpFromASnapshot() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3, s -> s
        .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600))
        .withSnapshotEveryEntries(200)
        .withLogSegmentBytes(64 * 1024))) {
      CommitWorkload load = new CommitWorkload(cluster, 4);
      try {
        load.awaitMore(100, WAIT.toMillis());
        int leader = cluster.awaitLeader(WAIT);
        int victim = (leader + 1) % 3;
        cluster.stop(victim);
        // Enough commits that every live replica snapshots and purges the entries the victim lacks.
        load.awaitMore(600, WAIT.toMillis());
        for (int i = 0; i < 3; i++) {
          if (i != victim) {
            assertTrue(cluster.database(i).status().logStartIndex() > 1,
                "replica " + i + " purged its log after a snapshot: " + cluster.database(i).status());
          }
        }
        Directories.delete(cluster.directory(victim));
        cluster.start(victim);
        load.awaitMore(200, WAIT.toMillis());
        cluster.awaitApplied(load.highestIndex(), WAIT);
        ReplicaStatus caughtUp = cluster.database(victim).status();
        assertTrue(caughtUp.snapshotIndex() > 0 && caughtUp.logStartIndex() > 1,
            "the wiped replica started from a snapshot it received, its log after it: " + caughtUp);
      } finally {
        load.close();
      }
      assertConsistent(cluster, load);
    }
  }

  /** Every replica holds the same keys and values; every acknowledged commit and its counter are there. */
  static void assertConsistent(ReplicaCluster cluster, CommitWorkload load) throws Exception {
    cluster.awaitApplied(load.highestIndex(), WAIT);
    List<KeyValue> first = null;
    for (int i = 0; i < cluster.size(); i++) {
      List<KeyValue> all;
      try (ReplicatedTransaction t = cluster.database(i).begin()) {
        all = t.list(KeyRange.all());
      }
      if (first == null) {
        first = all;
      } else {
        assertEquals(first, all, "replica " + i + " differs from replica 0");
      }
    }
    List<String> firstLog = null;
    for (int i = 0; i < cluster.size(); i++) {
      List<String> log = new java.util.ArrayList<>();
      try (ReplicaChangeFeed feed = cluster.database(i).changes(CommitWorkload.LOG, -1)) {
        for (List<ReplicaLogRecord> page = feed.poll(1000); !page.isEmpty(); page = feed.poll(1000)) {
          page.forEach(r -> log.add(r.index() + ":" + new String(r.entries().get(0), UTF_8)));
        }
      }
      if (firstLog == null) {
        firstLog = log;
        long acknowledged = load.acks.values().stream().mapToLong(Long::longValue).sum();
        assertEquals(log.stream().map(r -> r.substring(r.indexOf(':') + 1)).distinct().count(), log.size(),
            "a resent request id appended no second record");
        assertTrue(log.size() >= acknowledged, log.size() + " log records for " + acknowledged + " acknowledged commits");
      } else {
        assertEquals(firstLog, log, "replica " + i + " holds the same log records at the same indexes as replica 0");
      }
    }
    java.util.Set<String> logged = new java.util.HashSet<>();
    firstLog.forEach(r -> logged.add(r.substring(r.indexOf(':') + 1)));
    ReplicatedDatabase db = cluster.database(0);
    for (Map.Entry<Integer, Long> client : load.acks.entrySet()) {
      byte[] count = db.get("default", ("count/c" + client.getKey()).getBytes(UTF_8), ReadConsistency.LOCAL).toCompletableFuture().get();
      long counted = count == null ? 0 : Long.parseLong(new String(count, UTF_8));
      assertEquals(client.getValue(), counted, "client " + client.getKey() + ": acknowledged commits against its counter");
      for (long n = 0; n < client.getValue(); n++) {
        byte[] v = db.get("default", ("c" + client.getKey() + "/" + n).getBytes(UTF_8), ReadConsistency.LOCAL).toCompletableFuture().get();
        assertEquals("v" + n, v == null ? null : new String(v, UTF_8), "acknowledged commit c" + client.getKey() + "/" + n);
        assertTrue(logged.contains("c" + client.getKey() + "/" + n), "the log record of acknowledged commit c" + client.getKey() + "/" + n);
      }
    }
  }
}
