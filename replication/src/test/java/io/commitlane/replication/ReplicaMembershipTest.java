package io.commitlane.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
      }
    }
  }
}
