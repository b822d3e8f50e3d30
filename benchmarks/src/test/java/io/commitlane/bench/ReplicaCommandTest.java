package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.replication.ReplicaPeer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaCommandTest {
  @TempDir Path dir;

  @Test
  void statusPrintsEveryReplicaWithItsRoleIndexesAndLagAndFailsWhenOneDoesNotAnswer() throws Exception {
    try (ReplicaLoopback nodes = new ReplicaLoopback(dir, 3, s -> s)) {
      nodes.awaitLeader(Duration.ofSeconds(30));
      nodes.database(0).begin().put("k".getBytes(), "v".getBytes()).commit().toCompletableFuture().get();
      String peers = nodes.group().voters().stream().map(p -> p.id() + "=" + p.host() + ":" + p.port()).collect(Collectors.joining(","));

      CliRun ok = CliRun.of("replica", "status", "--peers", peers, "--database", ReplicaLoopback.DATABASE);
      assertEquals(0, ok.code(), ok.out() + ok.err());
      assertTrue(ok.out().contains("LEADER"), ok.out());
      assertEquals(2, ok.out().lines().filter(l -> l.contains("FOLLOWER")).count(), ok.out());
      assertTrue(ok.out().contains("committed") && ok.out().contains("lag"), ok.out());

      nodes.stop(2);
      CliRun missing = CliRun.of("replica", "status", "--peers", peers, "--database", ReplicaLoopback.DATABASE);
      assertEquals(1, missing.code(), missing.out() + missing.err());
      ReplicaPeer stopped = nodes.group().voters().get(2);
      assertTrue(missing.out().lines().anyMatch(l -> l.startsWith(stopped.id()) && l.contains("no answer")), missing.out());
    }
  }

  @Test
  void badPeersAreAUsageError() {
    CliRun bad = CliRun.of("replica", "status", "--peers", "n0=localhost", "--database", "db");
    assertEquals(2, bad.code(), bad.out() + bad.err());
    assertTrue(bad.err().contains("is not id=host:port"), bad.err());
  }
}
