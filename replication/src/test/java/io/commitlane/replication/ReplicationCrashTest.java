package io.commitlane.replication;

import io.commitlane.replication.internal.apply.Directories;
import io.commitlane.replication.internal.entry.ReplicaRecords;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replica nodes as separate processes under the faults a machine really has: SIGKILL of the
 * leader, of a follower, of every node at once; SIGSTOP of the leader for longer than the
 * election timeout; a node restarted with its directory gone. And under an operator's mistakes,
 * which the node refuses instead of starting: a node restarted with a list of members the group
 * does not have, and a node started on another deployment's replica directory. A client in this
 * process runs exactly-once commits (six clients through one handle, so commits share Raft
 * entries) and a register that one writer sets and readers read
 * linearizably. Afterwards: no stale or future read, every acknowledged commit present once, and
 * every replica's database the same.
 */
class ReplicationCrashTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Kept when the test fails: each node's log is there ({@code n0.log}, ...). */
  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir;

  /** RocksDB's WAL off in every replica (the default): the Raft log is what a replica replays. */
  @Test
  void noAcknowledgedCommitIsLostOrAppliedTwiceAndNoReadIsStaleUnderKillsFreezesWipesAndRefusedStarts() throws Exception {
    try (ProcessReplicaCluster cluster = new ProcessReplicaCluster(dir, 3, 200, false);
        ReplicatedDatabase client = ReplicatedDatabase.connect(cluster.group(), Duration.ofSeconds(10))) {
      CommitWorkload load = CommitWorkload.batched(node -> client, 1, 6);
      RegisterHistory register = new RegisterHistory(client, 2);
      try {
        load.awaitMore(100, WAIT.toMillis());

        int leader = cluster.awaitLeader(client, WAIT);
        cluster.kill(leader);
        load.awaitMore(100, WAIT.toMillis());
        String leftOut = cluster.peers().get((leader + 1) % 3).id();
        List<ReplicaPeer> oneLess = cluster.peers().stream().filter(p -> !p.id().equals(leftOut)).toList();
        RuntimeException refused = cluster.startRefused(leader, oneLess); // restarted with a member left out: it takes no part
        assertTrue(refused instanceof MembershipMismatchException mismatch && mismatch.agreed().sameMembers(cluster.group())
            && refused.getMessage().contains(new ReplicationGroup(ReplicaCluster.DATABASE, oneLess).members()), refused.toString());
        cluster.start(leader);

        int frozen = cluster.awaitLeader(client, WAIT);
        cluster.freeze(frozen);
        load.awaitMore(100, WAIT.toMillis()); // the others elected a leader while it was frozen
        assertNotEquals(frozen, cluster.awaitLeader(client, WAIT));
        cluster.thaw(frozen); // a deposed leader: it must step down, not answer reads
        load.awaitMore(100, WAIT.toMillis());

        int follower = (cluster.awaitLeader(client, WAIT) + 1) % 3;
        cluster.kill(follower);
        load.awaitMore(400, WAIT.toMillis()); // the others snapshot and purge what it lacks
        Directories.delete(cluster.directory(follower));
        Files.move(anotherDeploymentsReplica(dir.resolve("another-deployment"), cluster.peers().get(follower).id()),
            cluster.directory(follower));
        refused = cluster.startRefused(follower, cluster.peers()); // another deployment's replica: neither served nor let in
        assertTrue(refused instanceof ForeignReplicaDirectoryException && refused.getMessage().contains("another group"), refused.toString());
        Directories.delete(cluster.directory(follower));
        cluster.start(follower); // empty: it catches up from a snapshot
        load.awaitMore(100, WAIT.toMillis());

        cluster.killAllAndRestart();
        load.awaitMore(100, WAIT.toMillis());
      } finally {
        load.close();
        register.close();
      }
      List<String> violations = register.violations();
      assertTrue(violations.isEmpty(), violations.size() + " of " + register.reads() + " reads break linearizability: "
          + violations.subList(0, Math.min(5, violations.size())));
      assertTrue(register.acknowledgedWrites() > 0 && register.reads() > 0, "the register was written and read");
      assertEveryCommitOnceAndReplicasEqual(cluster, client, load, 500);
    }
  }

  /** RocksDB's WAL on in every replica: killing every node at once under load loses nothing either. */
  @Test
  void killingEveryNodeAtOnceWithTheRocksDbWalOnLosesNoAcknowledgedCommit() throws Exception {
    try (ProcessReplicaCluster cluster = new ProcessReplicaCluster(dir, 3, 200, true);
        ReplicatedDatabase client = ReplicatedDatabase.connect(cluster.group(), Duration.ofSeconds(10))) {
      CommitWorkload load = CommitWorkload.batched(node -> client, 1, 6);
      try {
        load.awaitMore(200, WAIT.toMillis());
        cluster.killAllAndRestart();
        load.awaitMore(100, WAIT.toMillis());
      } finally {
        load.close();
      }
      assertEveryCommitOnceAndReplicasEqual(cluster, client, load, 250);
    }
  }

  /**
   * Node {@code id}'s directory from another deployment of the same database: a group of that one
   * node at another address, with commits of its own.
   */
  private static Path anotherDeploymentsReplica(Path dir, String id) throws Exception {
    ReplicaPeer peer = new ReplicaPeer(id, "127.0.0.1", ReplicaCluster.freePort());
    try (ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir))) {
      ReplicatedDatabase db = node.host(new ReplicationGroup(ReplicaCluster.DATABASE, List.of(peer)));
      for (int i = 0; i < 6; i++) {
        db.begin().put(("c0/" + i).getBytes(UTF_8), "another deployment".getBytes(UTF_8)).commit().toCompletableFuture().get();
      }
    }
    return dir;
  }

  /** Every acknowledged commit is there once, and, once every replica applied all and stopped, their databases are equal. */
  private static void assertEveryCommitOnceAndReplicasEqual(ProcessReplicaCluster cluster, ReplicatedDatabase client,
      CommitWorkload load, int atLeastKeys) throws Exception {
    assertTrue(load.highestSlot.get() > 0, "commits sent together shared entries (the batched path ran)");
    assertEveryCommitOnceThroughTheLeader(client, load);
    awaitEqualApplied(client);
    cluster.stopAll();
    assertReplicasEqual(cluster, atLeastKeys);
  }

  private static void assertEveryCommitOnceThroughTheLeader(ReplicatedDatabase client, CommitWorkload load) throws Exception {
    for (Map.Entry<Integer, Long> c : load.acks.entrySet()) {
      byte[] count = client.get(("count/c" + c.getKey()).getBytes(UTF_8)).toCompletableFuture().get();
      assertEquals(c.getValue(), count == null ? 0 : Long.parseLong(new String(count, UTF_8)),
          "client " + c.getKey() + ": acknowledged commits against its counter (lost or applied twice)");
      for (long n = 0; n < c.getValue(); n += 37) {
        byte[] v = client.get(("c" + c.getKey() + "/" + n).getBytes(UTF_8)).toCompletableFuture().get();
        assertEquals("v" + n, v == null ? null : new String(v, UTF_8), "acknowledged commit c" + c.getKey() + "/" + n);
      }
    }
  }

  /** Waits until every replica applied what the leader committed. */
  private static void awaitEqualApplied(ReplicatedDatabase client) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<ReplicaReport> reports = client.groupStatus();
      long committed = reports.stream().mapToLong(ReplicaReport::committedIndex).max().orElse(0);
      if (reports.stream().allMatch(r -> r.reachable() && r.appliedIndex() >= committed)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("replicas did not converge: " + client.groupStatus());
  }

  /**
   * Opens each stopped replica's database read-only and compares every key and value, and every
   * transaction-log record (index, log, timestamp and entries).
   */
  private static void assertReplicasEqual(ProcessReplicaCluster cluster, int atLeastKeys) throws Exception {
    List<KeyValue> first = null;
    List<String> firstLog = null;
    for (int i = 0; i < cluster.size(); i++) {
      Path db;
      try (Stream<Path> found = Files.find(cluster.directory(i), 6, (p, a) -> p.endsWith("sm/db"))) {
        db = found.findFirst().orElseThrow();
      }
      List<KeyValue> all;
      List<String> log = new java.util.ArrayList<>();
      try (Database d = Database.openReadOnly(db)) {
        all = d.list(KeyRange.all());
        d.internalRecords().scan(ReplicaRecords.CHANGES, ReplicaRecords.CHANGES_END, (key, value) -> {
          log.add(ReplicaLogRecord.decode(ReplicaRecords.changeLog(key), ReplicaRecords.changeIndex(key), value).toString());
          return true;
        });
      }
      if (firstLog == null) {
        firstLog = log;
        assertTrue(log.size() > atLeastKeys / 2, "replica 0 holds the workload's log records: " + log.size());
      } else {
        assertEquals(firstLog, log, "replica " + i + "'s log records differ from replica 0's");
      }
      if (first == null) {
        first = all;
        assertTrue(all.size() > atLeastKeys, "replica 0 holds the history: " + all.size() + " keys");
      } else {
        assertEquals(first.size(), all.size(), "replica " + i + " key count");
        assertEquals(first, all, "replica " + i + " differs from replica 0");
      }
    }
  }
}
