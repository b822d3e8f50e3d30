package io.commitlane.replication;

import io.commitlane.replication.internal.apply.Directories;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaMembershipTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void aNewReplicaJoinsAsAListenerCatchesUpBecomesAVoterAndAnOldOneIsRetired() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3, s -> s
        .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600))
        .withSnapshotEveryEntries(100))) {
      cluster.awaitLeader(WAIT);
      CommitReceipt last = null;
      for (int i = 0; i < 300; i++) {
        last = cluster.database(0).begin().put(b("k" + i), b("v" + i)).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      cluster.awaitApplied(last.index(), WAIT);

      ReplicaPeer newcomer = new ReplicaPeer("n3", "127.0.0.1", ReplicaCluster.freePort());
      try (ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(newcomer, dir.resolve("n3"))
          .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)))) {
        ReplicatedDatabase joined = node.join(cluster.group());
        cluster.database(1).addReplica(newcomer, WAIT);

        ReplicaStatus status = joined.status();
        assertEquals("FOLLOWER", status.role(), "a voter now: " + status);
        assertTrue(status.appliedIndex() >= last.index(), "caught up: " + status);
        assertArrayEquals(b("v299"), joined.get("default", b("k299"), ReadConsistency.LOCAL).toCompletableFuture().get());
        assertEquals(List.of("n0", "n1", "n2", "n3"),
            cluster.database(1).groupStatus().stream().map(ReplicaReport::replica).sorted().toList());

        // Retire n0: out of the group, then its node stops; the three others commit on their own.
        cluster.database(1).removeReplica("n0");
        cluster.stop(0);
        CommitReceipt after = joined.begin().put(b("after"), b("retired")).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTrue(after.index() > last.index());
        assertEquals(List.of("n1", "n2", "n3"),
            cluster.database(1).groupStatus().stream().map(ReplicaReport::replica).sorted().toList());
        assertArrayEquals(b("retired"), cluster.database(2).get(b("after")).toCompletableFuture().get(30, TimeUnit.SECONDS));

        // The group keeps its id: a client and a node given the group as it is now find it from
        // its members; the list it started with is refused.
        ReplicationGroup now = new ReplicationGroup(ReplicaCluster.DATABASE, List.of(cluster.peer(1), cluster.peer(2), newcomer));
        try (ReplicatedDatabase client = ReplicatedDatabase.connect(now, WAIT)) {
          assertArrayEquals(b("retired"), client.get(b("after")).toCompletableFuture().get(30, TimeUnit.SECONDS));
        }
        assertThrows(MembershipMismatchException.class, () -> ReplicatedDatabase.connect(cluster.group(), WAIT));
        // A follower loses its disk (n2, or n1 when n2 leads: this is about rejoining, not about
        // electing a leader, which the failover tests cover).
        int lost = ReplicaCluster.awaitLeader(List.of(cluster.database(1), cluster.database(2), joined), WAIT) == 1 ? 1 : 2;
        int kept = 3 - lost;
        cluster.stop(lost);
        Directories.delete(cluster.directory(lost)); // its disk lost: it joins the group as it is now, empty
        try (ReplicaNode wiped = cluster.startNode(lost)) {
          ReplicatedDatabase back = wiped.host(now);
          List<ReplicatedDatabase> members = List.of(cluster.database(kept), joined, back);
          assertTrue(ReplicaCluster.awaitLeader(members, WAIT) >= 0,
              () -> "no leader among the three replicas:\n" + ReplicaCluster.describe(members));
          CommitReceipt later = joined.begin().put(b("later"), b("caught up")).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
          back.sync().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          assertArrayEquals(b("caught up"), back.get("default", b("later"), ReadConsistency.LOCAL).toCompletableFuture().get());
          assertArrayEquals(b("v299"), back.get("default", b("k299"), ReadConsistency.LOCAL).toCompletableFuture().get());
          assertTrue(back.status().appliedIndex() >= later.index());
        }
      }
    }
  }

  @Test
  void aClientHandleAddsAJoinedReplicaAndRemovesItRefusingANodeThatDidNotJoinAndAStaleMemberList() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3, s -> s
        .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)))) {
      cluster.awaitLeader(WAIT);
      CommitReceipt last = null;
      for (int i = 0; i < 20; i++) {
        last = cluster.database(0).begin().put(b("k" + i), b("v" + i)).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      ReplicaPeer newcomer = new ReplicaPeer("n3", "127.0.0.1", ReplicaCluster.freePort());
      ReplicationGroup four = new ReplicationGroup(ReplicaCluster.DATABASE,
          List.of(cluster.peer(0), cluster.peer(1), cluster.peer(2), newcomer));
      try (ReplicatedDatabase client = ReplicatedDatabase.connect(cluster.group(), WAIT)) {
        // Not started yet: refused before the configuration changes.
        ReplicaUnavailableException notJoined = assertThrows(ReplicaUnavailableException.class, () -> client.addReplica(newcomer, WAIT));
        assertTrue(notJoined.getMessage().contains("node n3 at " + newcomer.host() + ":" + newcomer.port()), notJoined.getMessage());
        assertEquals(List.of("n0", "n1", "n2"), client.groupStatus().stream().map(ReplicaReport::replica).sorted().toList());

        try (ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(newcomer, dir.resolve("n3"))
            .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)))) {
          ReplicatedDatabase joined = node.join(cluster.group());
          client.addReplica(newcomer, WAIT);
          ReplicaStatus status = joined.status();
          assertEquals("FOLLOWER", status.role(), "a voter now: " + status);
          assertTrue(status.appliedIndex() >= last.index(), "caught up before it votes: " + status);
          assertArrayEquals(b("v19"), joined.get("default", b("k19"), ReadConsistency.LOCAL).toCompletableFuture().get());
          assertEquals(List.of("n0", "n1", "n2", "n3"),
              cluster.database(1).groupStatus().stream().map(ReplicaReport::replica).sorted().toList());

          // The client's list is stale now: the change is refused, naming both lists.
          MembershipMismatchException stale = assertThrows(MembershipMismatchException.class, () -> client.removeReplica("n3"));
          assertEquals(four.members(), stale.agreed().members());
          assertEquals(cluster.group().members(), stale.given().members());

          try (ReplicatedDatabase now = ReplicatedDatabase.connect(four, WAIT)) {
            now.removeReplica("n3");
          }
          assertEquals(List.of("n0", "n1", "n2"),
              cluster.database(1).groupStatus().stream().map(ReplicaReport::replica).sorted().toList());
          CommitReceipt after = cluster.database(2).begin().put(b("after"), b("three")).commit().toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
          assertTrue(after.index() > last.index());
        }
      }
    }
  }

  @Test
  void aNodeRefusesToJoinWithADirectoryHoldingAnotherGroupsReplica() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3, s -> s
        .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)))) {
      cluster.awaitLeader(WAIT);
      cluster.database(0).begin().put(b("k"), b("v")).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      ReplicaPeer stranger = new ReplicaPeer("n3", "127.0.0.1", ReplicaCluster.freePort());
      ReplicaNodeSettings settings = ReplicaNodeSettings.of(stranger, dir.resolve("n3"))
          .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600));
      try (ReplicaNode alone = ReplicaNode.start(settings)) { // another deployment: a group of its own, of the same name
        alone.host(new ReplicationGroup(ReplicaCluster.DATABASE, List.of(stranger)));
      }
      try (ReplicaNode node = ReplicaNode.start(settings)) {
        ForeignReplicaDirectoryException refused = assertThrows(ForeignReplicaDirectoryException.class, () -> node.join(cluster.group()));
        assertTrue(refused.getMessage().contains("move this one away, then join"), refused.getMessage());
      }
      assertEquals(List.of("n0", "n1", "n2"), cluster.database(1).groupStatus().stream().map(ReplicaReport::replica).sorted().toList());
    }
  }

  @Test
  void listenersApplyEveryCommitWithoutVotingAndServeLocalReadsAndFeeds() throws Exception {
    List<ReplicaPeer> voters = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      voters.add(new ReplicaPeer("v" + i, "127.0.0.1", ReplicaCluster.freePort()));
    }
    ReplicaPeer reader = new ReplicaPeer("reader", "127.0.0.1", ReplicaCluster.freePort());
    ReplicationGroup group = new ReplicationGroup("catalog", voters).withListeners(reader);
    List<ReplicaNode> nodes = new java.util.ArrayList<>();
    try {
      List<ReplicatedDatabase> dbs = new java.util.ArrayList<>();
      for (ReplicaPeer peer : List.of(voters.get(0), voters.get(1), voters.get(2), reader)) {
        ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id()))
            .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)));
        nodes.add(node);
        dbs.add(node.host(group));
      }
      ReplicatedDatabase listener = dbs.get(3);
      CommitReceipt written = listener.begin().put(b("book/1"), b("dune")).log("catalog", b("added dune"))
          .commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals("dune", new String(syncedLocal(listener, "book/1"), UTF_8), "a listener applies what the voters commit");
      assertEquals("LISTENER", listener.status().role());
      try (ReplicaChangeFeed feed = listener.changes("catalog", -1)) {
        assertEquals(List.of(written.index()), feed.poll(10).stream().map(ReplicaLogRecord::index).toList());
      }

      // A listener does not count toward the majority: with one voter stopped, two of three still commit.
      nodes.get(0).close();
      nodes.set(0, null);
      CommitReceipt second = dbs.get(1).begin().put(b("book/2"), b("emma")).commit().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertTrue(second.index() > written.index());
      assertEquals("emma", new String(syncedLocal(listener, "book/2"), UTF_8));

      // Another listener joins a running group; removing a replica keeps the listeners.
      ReplicaPeer late = new ReplicaPeer("late", "127.0.0.1", ReplicaCluster.freePort());
      ReplicaNode lateNode = ReplicaNode.start(ReplicaNodeSettings.of(late, dir.resolve("late"))
          .withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600)));
      nodes.add(lateNode);
      ReplicatedDatabase lateDb = lateNode.join(group);
      dbs.get(1).addListener(late);
      assertEquals("emma", new String(syncedLocal(lateDb, "book/2"), UTF_8), "a listener added later catches up");
      dbs.get(1).removeReplica("late");
      assertEquals(List.of("reader", "v0", "v1", "v2"),
          dbs.get(1).groupStatus().stream().map(ReplicaReport::replica).sorted().toList(), "the first listener stays");
    } finally {
      for (ReplicaNode node : nodes) {
        if (node != null) {
          node.close();
        }
      }
    }
  }

  /** The value of {@code key} on this replica after a read barrier: it holds every acknowledged commit by then. */
  private static byte[] syncedLocal(ReplicatedDatabase db, String key) throws Exception {
    db.sync().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    return db.get("default", b(key), ReadConsistency.LOCAL).toCompletableFuture().get();
  }
}
