package io.commitlane.replication;

import io.commitlane.replication.internal.apply.Directories;
import io.commitlane.replication.internal.group.ReplicaIdentity;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which group a replica belongs to: a node or a client given other members than the group agreed
 * on is refused, naming both; a replica directory of another group of the database, or another
 * node's, is refused; none of them takes or serves a commit of the wrong group.
 */
class GroupIdentityTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static ReplicaNodeSettings fast(ReplicaPeer peer, Path dir) {
    return ReplicaNodeSettings.of(peer, dir).withElectionTimeouts(Duration.ofMillis(300), Duration.ofMillis(600));
  }

  /** A node given only itself forms a one-node group; a node given three members then is refused, not let into it. */
  @Test
  void aNodeGivenOtherMembersThanTheGroupItsPeersRunIsRefusedNamingBoth() throws Exception {
    ReplicaPeer a = new ReplicaPeer("a", "127.0.0.1", ReplicaCluster.freePort());
    ReplicaPeer b = new ReplicaPeer("b", "127.0.0.1", ReplicaCluster.freePort());
    ReplicaPeer c = new ReplicaPeer("c", "127.0.0.1", ReplicaCluster.freePort());
    ReplicationGroup alone = ReplicationGroup.of("shop", c);
    ReplicationGroup three = ReplicationGroup.of("shop", a, b, c);
    try (ReplicaNode nodeC = ReplicaNode.start(fast(c, dir.resolve("c")));
        ReplicaNode nodeA = ReplicaNode.start(fast(a, dir.resolve("a")))) {
      ReplicatedDatabase onC = nodeC.host(alone);
      await(onC.begin().put(b("k"), b("on c")).commit());

      MembershipMismatchException refused = assertThrows(MembershipMismatchException.class, () -> nodeA.host(three));
      assertTrue(three.sameMembers(refused.given()), refused.getMessage());
      assertTrue(alone.sameMembers(refused.agreed()), refused.getMessage());
      assertTrue(refused.getMessage().contains("a=" + a.address()) && refused.getMessage().contains("c=" + c.address()),
          "names both lists: " + refused.getMessage());
      Path raftA = dir.resolve("a").resolve("raft");
      try (Stream<Path> created = Files.exists(raftA) ? Files.list(raftA) : Stream.empty()) {
        assertEquals(List.of(), created.toList(), "node a created no replica");
      }

      MembershipMismatchException client = assertThrows(MembershipMismatchException.class,
          () -> ReplicatedDatabase.connect(three, WAIT));
      assertTrue(alone.sameMembers(client.agreed()), client.getMessage());
    }
  }

  /**
   * Two groups of one name with different members, formed before either could see the other, are
   * two Raft groups: commits through one never land in the other, and each reads its own.
   */
  @Test
  void groupsOfOneNameWithDifferentMembersNeverTakeEachOthersCommits() throws Exception {
    ReplicaPeer a = new ReplicaPeer("a", "127.0.0.1", ReplicaCluster.freePort());
    ReplicaPeer b = new ReplicaPeer("b", "127.0.0.1", ReplicaCluster.freePort());
    ReplicaPeer c = new ReplicaPeer("c", "127.0.0.1", ReplicaCluster.freePort());
    ReplicationGroup three = ReplicationGroup.of("shop", a, b, c);
    ReplicaNode nodeA = ReplicaNode.start(fast(a, dir.resolve("a")));
    ReplicaNode nodeB = ReplicaNode.start(fast(b, dir.resolve("b")));
    ReplicaNode nodeC = null;
    try {
      ReplicatedDatabase onA = nodeA.host(three);
      nodeB.host(three);
      nodeC = ReplicaNode.start(fast(c, dir.resolve("c")));
      ReplicatedDatabase onC = nodeC.host(ReplicationGroup.of("shop", c)); // sees no peer of its list: forms its own
      for (int i = 0; i < 5; i++) {
        CommitReceipt r = await(onA.begin().put(b("order/" + i), b("through a")).commit());
        assertTrue(r.index() > 0);
      }
      assertArrayEquals(b("through a"), await(onA.get(b("order/4"))), "a linearizable read through a sees a's commits");
      assertNull(await(onC.get(b("order/4"))), "c's one-node group took none of them");
      await(onC.begin().put(b("only-c"), b("1")).commit());
      assertNull(await(onA.get(b("only-c"))), "nor a's group c's");
    } finally {
      List<AutoCloseable> closing = new java.util.ArrayList<>(List.of(nodeA, nodeB));
      if (nodeC != null) {
        closing.add(nodeC);
      }
      ReplicaCluster.closeAll(closing);
    }
  }

  /**
   * A replica restarted with members other than its group's is refused, and takes no part; with
   * the group's members it resumes and has every commit. A client with other members is refused.
   */
  @Test
  void aRestartedNodeOrAClientGivenOtherMembersIsRefusedAndResumesWithTheGroupsOwn() throws Exception {
    try (ReplicaCluster cluster = new ReplicaCluster(dir, 3)) {
      CommitReceipt before = await(cluster.database(0).begin().put(b("kept"), b("1")).commit());
      cluster.stop(2);
      ReplicationGroup missingOne = new ReplicationGroup(ReplicaCluster.DATABASE, List.of(cluster.peer(1), cluster.peer(2)));
      ReplicationGroup moved = new ReplicationGroup(ReplicaCluster.DATABASE,
          List.of(cluster.peer(0), cluster.peer(1), new ReplicaPeer("n2", "127.0.0.1", ReplicaCluster.freePort())));
      try (ReplicaNode n2 = cluster.startNode(2)) {
        MembershipMismatchException refused = assertThrows(MembershipMismatchException.class, () -> n2.host(missingOne));
        assertTrue(cluster.group().sameMembers(refused.agreed()), refused.getMessage());
        assertTrue(refused.getMessage().contains(missingOne.members()) && refused.getMessage().contains(cluster.group().members()),
            refused.getMessage());
        assertThrows(MembershipMismatchException.class, () -> n2.host(moved));

        ReplicatedDatabase resumed = n2.host(cluster.group()); // the group's own members
        CommitReceipt after = await(cluster.database(1).begin().put(b("after"), b("2")).commit());
        await(resumed.sync());
        assertArrayEquals(b("1"), await(resumed.get("default", b("kept"), ReadConsistency.LOCAL)));
        assertArrayEquals(b("2"), await(resumed.get("default", b("after"), ReadConsistency.LOCAL)));
        assertTrue(after.index() > before.index());
        assertThrows(MembershipMismatchException.class, () -> n2.host(missingOne), "nor once it is hosted");
      }
      MembershipMismatchException client = assertThrows(MembershipMismatchException.class,
          () -> ReplicatedDatabase.connect(missingOne, WAIT));
      assertTrue(cluster.group().sameMembers(client.agreed()), client.getMessage());
    }
  }

  /**
   * A node started on a directory that holds another deployment's replica of the database (same
   * node id, other members) does not serve it or bring it into the group; moved away, the node
   * joins empty and catches up.
   */
  @Test
  void aReplicaDirectoryOfAnotherGroupOfTheDatabaseIsRefusedAndAnEmptyOneCatchesUp() throws Exception {
    Path old = dir.resolve("old-deployment");
    ReplicaPeer oldN2 = new ReplicaPeer("n2", "127.0.0.1", ReplicaCluster.freePort());
    try (ReplicaNode node = ReplicaNode.start(fast(oldN2, old))) {
      ReplicatedDatabase db = node.host(ReplicationGroup.of(ReplicaCluster.DATABASE, oldN2));
      for (int i = 0; i < 6; i++) {
        await(db.begin().put(b("stale"), b("old " + i)).commit());
      }
    }
    try (ReplicaCluster cluster = new ReplicaCluster(dir.resolve("new"), 3)) {
      await(cluster.database(0).begin().put(b("fresh"), b("new")).commit());
      cluster.stop(2);
      Directories.delete(cluster.directory(2));
      Files.move(old, cluster.directory(2));
      try (ReplicaNode n2 = cluster.startNode(2)) {
        ForeignReplicaDirectoryException refused = assertThrows(ForeignReplicaDirectoryException.class, () -> n2.host(cluster.group()));
        assertTrue(refused.directory().startsWith(cluster.directory(2)), refused.getMessage());
        assertTrue(refused.getMessage().contains("another group"), refused.getMessage());
      }
      Path aside = dir.resolve("moved-away");
      Files.move(cluster.directory(2), aside);
      cluster.start(2);
      // A leader sends a follower that lost its log the entries again with its next ones (Ratis
      // keeps its last match index until then): commit one.
      await(cluster.database(0).begin().put(b("later"), b("new")).commit());
      await(cluster.database(2).sync());
      assertArrayEquals(b("new"), await(cluster.database(2).get("default", b("fresh"), ReadConsistency.LOCAL)));
      assertNull(await(cluster.database(2).get("default", b("stale"), ReadConsistency.LOCAL)), "the old deployment's data is not served");
    }
  }

  /** A replica directory copied from another node stops the node from starting, before any of it runs. */
  @Test
  void aReplicaDirectoryCopiedFromAnotherNodeStopsTheNodeFromStarting() throws Exception {
    ReplicaPeer n0 = new ReplicaPeer("n0", "127.0.0.1", ReplicaCluster.freePort());
    try (ReplicaNode node = ReplicaNode.start(fast(n0, dir.resolve("n0")))) {
      await(node.host(ReplicationGroup.of("shop", n0)).begin().put(b("k"), b("v")).commit());
    }
    ReplicaPeer n1 = new ReplicaPeer("n1", "127.0.0.1", ReplicaCluster.freePort());
    Files.move(dir.resolve("n0"), dir.resolve("n1"));
    ForeignReplicaDirectoryException refused = assertThrows(ForeignReplicaDirectoryException.class,
        () -> ReplicaNode.start(fast(n1, dir.resolve("n1"))));
    assertTrue(refused.getMessage().contains("node n0"), refused.getMessage());
  }

  /**
   * A replica directory an earlier version wrote (named by the database alone, no identity) is
   * this node's replica when its members agree: it is kept, with its data, and given an identity.
   */
  @Test
  void aDirectoryAnEarlierVersionWroteIsKeptWithItsDataAndGivenAnIdentity() throws Exception {
    ReplicaPeer n0 = new ReplicaPeer("n0", "127.0.0.1", ReplicaCluster.freePort());
    ReplicationGroup group = ReplicationGroup.of("shop", n0);
    Path raft = dir.resolve("n0").resolve("raft");
    try (ReplicaNode node = ReplicaNode.start(fast(n0, dir.resolve("n0")))) {
      await(node.host(group).begin().put(b("k"), b("written before")).commit());
    }
    // As an earlier version left it: the directory named by the name-only id, no identity file.
    Path legacy = raft.resolve(ReplicationGroup.legacyGroupId("shop").getUuid().toString());
    Files.move(raft.resolve(group.groupId().getUuid().toString()), legacy);
    Files.delete(legacy.resolve(ReplicaIdentity.FILE));
    try (ReplicaNode node = ReplicaNode.start(fast(n0, dir.resolve("n0")))) {
      ReplicatedDatabase db = node.host(group);
      await(db.sync());
      assertArrayEquals(b("written before"), await(db.get("default", b("k"), ReadConsistency.LOCAL)));
      ReplicaIdentity identity = ReplicaIdentity.readFrom(legacy);
      assertEquals(ReplicaIdentity.Origin.ADOPTED, identity.origin());
      assertEquals("n0", identity.node());
      await(db.begin().put(b("k2"), b("after")).commit());
    }
    try (Stream<Path> left = Files.list(raft)) {
      assertEquals(List.of(legacy), left.toList(), "the group keeps the id it has");
    }
    assertFalse(Files.exists(raft.resolve(group.groupId().getUuid().toString())));
  }
}
