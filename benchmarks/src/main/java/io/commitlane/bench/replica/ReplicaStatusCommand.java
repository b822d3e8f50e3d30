package io.commitlane.bench.replica;

import io.commitlane.bench.Main;
import io.commitlane.replication.MembershipMismatchException;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaReport;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Each replica of each named database as it answers now. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Ask every replica of each database, all at once (through the status endpoint a node started by"
        + " replica run serves on its port + 1, else over gRPC), for its role, leader, term, last, committed"
        + " and applied log indexes and latest snapshot, and print them with each replica's lag behind the leader's"
        + " commit index. A replica that has not answered 5 s after the first replica answered (frozen or cut off; a"
        + " stopped one refuses at once) is reported as such; this process's own start, shared by every replica, does"
        + " not count against them. Exit code 0: every database has a leader, every replica answered and the group's"
        + " members are --peers and --listeners, 1: otherwise, 2: bad arguments.")
final class ReplicaStatusCommand implements Callable<Integer> {
  @Mixin
  ReplicaGroupOptions group;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    boolean healthy = true;
    List<ReplicaPeer> members = new ArrayList<>(group.voters());
    members.addAll(group.listeners());
    for (ReplicationGroup g : group.groups()) {
      List<ReplicaReport> reports = ReplicaStatusEndpoint.ask(members, g.database());
      if (reports != null) { // a node's status endpoint answered for the whole group
        Set<String> agreed = reports.stream().map(ReplicaReport::replica).collect(Collectors.toCollection(TreeSet::new));
        Set<String> given = members.stream().map(ReplicaPeer::id).collect(Collectors.toCollection(TreeSet::new));
        if (!agreed.equals(given)) {
          out.printf("database %s%nthe group's agreed members are %s, not the given %s: give --peers and --listeners as the"
              + " group is now%n", g.database(), agreed, given);
          healthy = false;
          continue;
        }
        healthy &= print(out, g.database(), reports);
        continue;
      }
      try (ReplicatedDatabase client = ReplicatedDatabase.connect(g, Duration.ofSeconds(5))) {
        reports = client.groupStatus();
      } catch (MembershipMismatchException e) {
        out.printf("database %s%n%s%n", g.database(), e.getMessage());
        healthy = false;
        continue;
      }
      healthy &= print(out, g.database(), reports);
    }
    out.flush();
    return healthy ? 0 : Main.FAILED;
  }

  /**
   * Prints one group's table; whether it has a leader that every replica answers as follower or listener. A replica
   * still in an election (a candidate, or a follower that names no or another leader) is not healthy: an operator
   * waiting for exit 0 before restarting the next node must not take a quorum down with it.
   */
  static boolean print(PrintWriter out, String database, List<ReplicaReport> reports) {
    long committed = reports.stream().filter(r -> "LEADER".equals(r.role())).mapToLong(ReplicaReport::committedIndex).max().orElse(-1);
    String leader = reports.stream().filter(r -> "LEADER".equals(r.role())).map(ReplicaReport::replica).findFirst().orElse(null);
    out.printf("database %s%n", database);
    out.printf("%-10s %-9s %-10s %6s %10s %10s %10s %8s %10s%n",
        "replica", "role", "leader", "term", "last", "committed", "applied", "lag", "snapshot");
    boolean healthy = committed >= 0;
    for (ReplicaReport r : reports) {
      if (!r.reachable()) {
        healthy = false;
        out.printf("%-10s %-9s %s%n", r.replica(), "-", "no answer: " + r.error());
        continue;
      }
      out.printf("%-10s %-9s %-10s %6d %10d %10d %10d %8s %10d%n", r.replica(), r.role(), r.leader() == null ? "-" : r.leader(),
          r.term(), r.lastIndex(), r.committedIndex(), r.appliedIndex(),
          committed < 0 ? "-" : Long.toString(Math.max(0, committed - r.appliedIndex())), r.snapshotIndex());
      boolean following = "LEADER".equals(r.role())
          || (("FOLLOWER".equals(r.role()) || "LISTENER".equals(r.role())) && leader != null && leader.equals(r.leader()));
      healthy &= following;
    }
    if (committed < 0) {
      out.println("no leader: fewer than a majority of replicas answered or an election is under way");
    } else if (!healthy) {
      out.println("not every replica follows leader " + leader + " yet: an election or a restart is under way");
    }
    return healthy;
  }
}
