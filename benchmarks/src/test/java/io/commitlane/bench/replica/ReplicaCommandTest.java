package io.commitlane.bench.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import io.commitlane.bench.Main;
import io.commitlane.bench.harness.HostProcess;
import io.commitlane.bench.replication.ReplicaLoopback;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaReport;
import io.commitlane.replication.ReplicaStatus;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaCommandTest {
  @TempDir Path dir;

  @Test
  void statusPrintsEveryReplicaWithItsRoleIndexesAndLagAndFailsWhenOneDoesNotAnswer() throws Exception {
    try (ReplicaLoopback nodes = new ReplicaLoopback(dir, 3, s -> s)) {
      nodes.awaitLeader(Duration.ofSeconds(30));
      nodes.database(0).begin().put("k".getBytes(), "v".getBytes()).commit().toCompletableFuture().get(60, TimeUnit.SECONDS);
      awaitEveryReplicaFollowing(List.of(nodes.database(0), nodes.database(1), nodes.database(2)));
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

  /**
   * A health check an operator scripts: every call against a healthy group names the leader and
   * both followers. One replica is reached through connections that start 1.5 s late, as every
   * replica is from a process whose gRPC has not started yet (measured at 0.6-3.8 s on a loaded
   * 2-core machine), so a deadline of one second per replica would report a healthy replica as
   * not answering. The calls run in this process (a new client each, as the command line makes)
   * and in a fresh process, as {@code ./commitlane} runs.
   */
  @Test
  void statusIsRightOnEveryCallAgainstAHealthyGroupWithASlowToReachReplica() throws Exception {
    int[] ports = HostProcess.freePorts(3);
    List<ReplicaNode> started = new ArrayList<>();
    try (SlowConnections slow = new SlowConnections(ports[0], Duration.ofMillis(1500))) {
      List<ReplicaPeer> bound = new ArrayList<>();
      List<ReplicaPeer> reached = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        bound.add(new ReplicaPeer("n" + i, "127.0.0.1", ports[i]));
        reached.add(new ReplicaPeer("n" + i, "127.0.0.1", i == 0 ? slow.port() : ports[i]));
      }
      ReplicationGroup group = new ReplicationGroup("slow", reached); // everyone reaches n0 through the slow connections
      List<ReplicatedDatabase> replicas = new ArrayList<>();
      for (ReplicaPeer peer : bound) {
        ReplicaNode node = ReplicaNode.start(ReplicaNodeSettings.of(peer, dir.resolve(peer.id())));
        started.add(node);
        replicas.add(node.host(group));
      }
      replicas.get(1).begin().put("k".getBytes(), "v".getBytes()).commit().toCompletableFuture().get(60, TimeUnit.SECONDS);
      awaitEveryReplicaFollowing(replicas);
      String peers = reached.stream().map(p -> p.id() + "=" + p.host() + ":" + p.port()).collect(Collectors.joining(","));
      String[] status = {"replica", "status", "--peers", peers, "--database", "slow"};
      for (int i = 0; i < 4; i++) {
        assertHealthy(CliRun.of(status), "in this process, call " + i);
      }
      assertHealthy(inFreshProcess(status), "in a fresh process");
    } finally {
      closeAll(started);
    }
  }

  /**
   * An operator's health check polled in a loop: twenty calls, each a new client as the command
   * line makes, against a healthy group, and every one names the leader and both followers.
   */
  @Test
  void statusIsRightOnTwentyCallsInARowAgainstAHealthyGroup() throws Exception {
    try (ReplicaLoopback nodes = new ReplicaLoopback(dir, 3, s -> s)) {
      nodes.awaitLeader(Duration.ofSeconds(30));
      nodes.database(0).begin().put("k".getBytes(), "v".getBytes()).commit().toCompletableFuture().get(60, TimeUnit.SECONDS);
      awaitEveryReplicaFollowing(List.of(nodes.database(0), nodes.database(1), nodes.database(2)));
      String peers = nodes.group().voters().stream().map(p -> p.id() + "=" + p.host() + ":" + p.port()).collect(Collectors.joining(","));
      for (int i = 0; i < 20; i++) {
        assertHealthy(CliRun.of("replica", "status", "--peers", peers, "--database", ReplicaLoopback.DATABASE), "call " + i);
      }
    }
  }

  /**
   * Nodes that serve their status endpoint (as {@code replica run} does): the command asks a node's
   * endpoint, which answers for the whole group; twenty calls in a row are right, and a stopped
   * node is reported as not answering.
   */
  @Test
  void statusThroughTheNodesStatusEndpointsIsRightOnEveryCallAndReportsAStoppedNode() throws Exception {
    List<ReplicaStatusEndpoint> endpoints = new ArrayList<>();
    try (ReplicaLoopback nodes = new ReplicaLoopback(dir, 3, s -> s)) {
      nodes.awaitLeader(Duration.ofSeconds(30));
      nodes.database(0).begin().put("k".getBytes(), "v".getBytes()).commit().toCompletableFuture().get(60, TimeUnit.SECONDS);
      List<ReplicatedDatabase> replicas = List.of(nodes.database(0), nodes.database(1), nodes.database(2));
      awaitEveryReplicaFollowing(replicas);
      for (int i = 0; i < 3; i++) {
        ReplicaStatusEndpoint e = ReplicaStatusEndpoint.serve(nodes.group().voters().get(i));
        e.add(replicas.get(i));
        endpoints.add(e);
      }
      List<ReplicaReport> answered = ReplicaStatusEndpoint.ask(nodes.group().voters(), ReplicaLoopback.DATABASE);
      assertEquals(3, answered == null ? 0 : answered.size(), "a node's endpoint answers for the group: " + answered);
      awaitEveryReplicaAnswering(nodes.group().voters());
      assertEquals(null, ReplicaStatusEndpoint.ask(nodes.group().voters(), "other"), "no node hosts database 'other'");
      String peers = nodes.group().voters().stream().map(p -> p.id() + "=" + p.host() + ":" + p.port()).collect(Collectors.joining(","));
      for (int i = 0; i < 20; i++) {
        assertHealthy(CliRun.of("replica", "status", "--peers", peers, "--database", ReplicaLoopback.DATABASE), "call " + i);
      }

      endpoints.get(2).close();
      nodes.stop(2);
      CliRun missing = CliRun.of("replica", "status", "--peers", peers, "--database", ReplicaLoopback.DATABASE);
      assertEquals(1, missing.code(), missing.out() + missing.err());
      ReplicaPeer stopped = nodes.group().voters().get(2);
      assertTrue(missing.out().lines().anyMatch(l -> l.startsWith(stopped.id()) && l.contains("no answer")), missing.out());

      String wrong = peers + ",n9=127.0.0.1:1";
      CliRun other = CliRun.of("replica", "status", "--peers", wrong, "--database", ReplicaLoopback.DATABASE);
      assertEquals(1, other.code(), other.out() + other.err());
      assertTrue(other.out().contains("agreed members"), other.out());
    } finally {
      endpoints.forEach(ReplicaStatusEndpoint::close);
    }
  }

  /** Closes the nodes at once: each close waits about a second for Ratis's log worker. */
  private static void closeAll(List<ReplicaNode> nodes) throws InterruptedException {
    List<Thread> closing = new ArrayList<>();
    for (ReplicaNode n : nodes) {
      Thread t = new Thread(n::close, "close-" + n.self().id());
      t.start();
      closing.add(t);
    }
    for (Thread t : closing) {
      t.join();
    }
  }

  /**
   * Until one replica leads and the other two follow it, naming it as their leader: what {@code
   * status} counts as healthy. After a commit the followers may not know the leader yet.
   */
  private static void awaitEveryReplicaFollowing(List<ReplicatedDatabase> replicas) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!everyReplicaFollows(replicas.stream().map(ReplicatedDatabase::status).toList())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no healthy group within 60 s: " + replicas.stream().map(ReplicatedDatabase::status).toList());
      }
      Thread.sleep(20); // an election runs on Ratis's own timers
    }
  }

  private static boolean everyReplicaFollows(List<ReplicaStatus> group) {
    List<String> leaders = group.stream().filter(s -> s.role().equals("LEADER")).map(ReplicaStatus::replica).toList();
    return leaders.size() == 1
        && group.stream().filter(s -> s.role().equals("FOLLOWER") && leaders.get(0).equals(s.leader())).count() == group.size() - 1;
  }

  /**
   * Waits until every node's endpoint reports every replica answering: each node asks the others
   * over its own connections, any of which may still be in gRPC's reconnect backoff from the
   * group's start, and a call is answered by whichever node answers first, so one node's
   * answering for all would not make the next calls right.
   */
  private static void awaitEveryReplicaAnswering(List<ReplicaPeer> voters) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (ReplicaPeer node : voters) {
      List<ReplicaReport> reports = ReplicaStatusEndpoint.askOne(node, ReplicaLoopback.DATABASE);
      while (reports == null || reports.size() != voters.size() || reports.stream().anyMatch(r -> r.error() != null)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("not every replica answered " + node.id() + " within 60 s: " + reports);
        }
        Thread.sleep(50); // the reconnect backoff runs on gRPC's own timers
        reports = ReplicaStatusEndpoint.askOne(node, ReplicaLoopback.DATABASE);
      }
    }
  }

  private static void assertHealthy(CliRun run, String which) {
    String all = which + ":\n" + run.out() + run.err();
    assertEquals(0, run.code(), all);
    assertEquals(1, run.out().lines().filter(l -> l.contains(" LEADER ")).count(), all);
    assertEquals(2, run.out().lines().filter(l -> l.contains(" FOLLOWER ")).count(), all);
    assertTrue(run.out().lines().noneMatch(l -> l.contains("no answer") || l.contains("no leader")), all);
  }

  /** The command line in a JVM of its own, as {@code ./commitlane} runs it. */
  private CliRun inFreshProcess(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "status", ".out");
    Path err = Files.createTempFile(dir, "status", ".err");
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("replica status did not end within 120 s: " + Files.readString(out) + Files.readString(err));
    }
    return new CliRun(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** A node told other members than the running group's does not start, and says both lists; so does status. */
  @Test
  void runAndStatusRefuseMembersOtherThanTheRunningGroupsNamingBoth() throws Exception {
    int[] ports = HostProcess.freePorts(2);
    ReplicaPeer a = new ReplicaPeer("a", "127.0.0.1", ports[0]);
    try (ReplicaNode nodeA = ReplicaNode.start(ReplicaNodeSettings.of(a, dir.resolve("a")))) {
      nodeA.host(ReplicationGroup.of("alone", a)); // a group of one
      String both = "a=127.0.0.1:" + ports[0] + ",b=127.0.0.1:" + ports[1];
      CliRun run = CliRun.of("replica", "run", "--id", "b", "--peers", both, "--database", "alone", "--dir", dir.resolve("b").toString());
      assertEquals(1, run.code(), run.out() + run.err());
      assertTrue(run.err().contains("refused to start") && run.err().contains("b=127.0.0.1:" + ports[1])
          && run.err().contains("voters [a=127.0.0.1:" + ports[0] + "]"), run.err());
      assertTrue(!run.err().contains("\tat "), "no stack trace: " + run.err());

      CliRun status = CliRun.of("replica", "status", "--peers", both, "--database", "alone");
      assertEquals(1, status.code(), status.out() + status.err());
      assertTrue(status.out().contains("agreed members"), status.out());
    }
  }

  /** A misspelt setting stops the node before it starts, naming the key, without a stack trace; a missing file is a usage error. */
  @Test
  void runRefusesAMisspeltSettingNamingItAndAMissingSettingsFile() throws Exception {
    Path conf = Files.writeString(dir.resolve("replica.conf"), "commitlane.replication { election-timout-min = 500 ms }\n");
    String[] run = {"replica", "run", "--id", "a", "--peers", "a=127.0.0.1:" + HostProcess.freePorts(1)[0], "--database", "shop",
        "--dir", dir.resolve("a").toString(), "--config", conf.toString()};
    CliRun misspelt = CliRun.of(run);
    assertEquals(1, misspelt.code(), misspelt.out() + misspelt.err());
    assertTrue(misspelt.err().contains("election-timout-min") && misspelt.err().contains("not a setting"), misspelt.err());
    assertTrue(!misspelt.err().contains("\tat "), "no stack trace: " + misspelt.err());

    run[run.length - 1] = dir.resolve("missing.conf").toString();
    CliRun missing = CliRun.of(run);
    assertEquals(2, missing.code(), missing.out() + missing.err());
    assertTrue(missing.err().contains("missing.conf is not a file"), missing.err());
  }

  @Test
  void badPeersAreAUsageError() {
    CliRun bad = CliRun.of("replica", "status", "--peers", "n0=localhost", "--database", "db");
    assertEquals(2, bad.code(), bad.out() + bad.err());
    assertTrue(bad.err().contains("is not id=host:port"), bad.err());
  }

  @Test
  void membershipCommandsTellAMistakeOnTheCommandLineFromARefusalByTheGroup() throws Exception {
    int[] ports = HostProcess.freePorts(2);
    String peers = "a=127.0.0.1:" + ports[0] + ",b=127.0.0.1:" + ports[1];
    CliRun neither = CliRun.of("replica", "run", "--peers", peers, "--database", "shop", "--dir", "unused");
    assertEquals(2, neither.code(), neither.out() + neither.err());
    assertTrue(neither.err().contains("give --id (a member of the group) or --join"), neither.err());
    CliRun both = CliRun.of("replica", "run", "--id", "a", "--join", "d=127.0.0.1:7001", "--peers", peers, "--database", "shop",
        "--dir", "unused");
    assertEquals(2, both.code(), both.out() + both.err());
    CliRun joinAMember = CliRun.of("replica", "run", "--join", "a=127.0.0.1:7001", "--peers", peers, "--database", "shop", "--dir", "unused");
    assertEquals(2, joinAMember.code(), joinAMember.out() + joinAMember.err());
    assertTrue(joinAMember.err().contains("is one of --peers or --listeners already"), joinAMember.err());

    CliRun badNode = CliRun.of("replica", "add", "--peers", peers, "--database", "shop", "--node", "d");
    assertEquals(2, badNode.code(), badNode.out() + badNode.err());
    assertTrue(badNode.err().contains("--node: 'd' is not id=host:port"), badNode.err());
    CliRun addAMember = CliRun.of("replica", "add", "--peers", peers, "--database", "shop", "--node", "b=127.0.0.1:7001");
    assertEquals(2, addAMember.code(), addAMember.out() + addAMember.err());
    assertTrue(addAMember.err().contains("is a member already"), addAMember.err());
    CliRun removeAStranger = CliRun.of("replica", "remove", "--peers", peers, "--database", "shop", "--node", "z");
    assertEquals(2, removeAStranger.code(), removeAStranger.out() + removeAStranger.err());
    assertTrue(removeAStranger.err().contains("--node z is not one of --peers or --listeners"), removeAStranger.err());

    // No member runs: the group cannot be changed, said plainly, exit 1, no stack trace.
    CliRun nobody = CliRun.of("replica", "remove", "--peers", peers, "--database", "shop", "--node", "b");
    assertEquals(1, nobody.code(), nobody.out() + nobody.err());
    assertTrue(nobody.err().startsWith("commitlane replica remove: database shop: ") && nobody.err().contains("no member of"),
        nobody.err());
    assertFalse(nobody.err().contains("\tat "), nobody.err());
  }
}
