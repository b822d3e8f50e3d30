package io.commitlane.bench.replica;

import io.commitlane.bench.cli.Checks;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicationGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Replicated databases on Apache Ratis: {@code ./commitlane replica run|status|add|remove ...}. */
@Command(name = "replica", mixinStandardHelpOptions = true,
    description = "Replicated databases on Apache Ratis: run a replica node, print each replica's role, leader,"
        + " term, indexes and lag, or add and remove a node. Exit code 0: done, 1: failed, 2: bad arguments.",
    subcommands = {ReplicaRunCommand.class, ReplicaStatusCommand.class, ReplicaMembershipCommands.Add.class,
        ReplicaMembershipCommands.Remove.class})
public final class ReplicaCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    throw new Checks.UsageException("name a subcommand: " + String.join(", ", spec.subcommands().keySet()));
  }

  /** {@code n0=127.0.0.1:7001,n1=127.0.0.1:7002,...} as peers; null or empty: none. */
  static List<ReplicaPeer> peers(String spec) {
    return peers(spec, "--peers");
  }

  static List<ReplicaPeer> peers(String spec, String option) {
    List<ReplicaPeer> peers = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return peers;
    }
    for (String p : spec.split(",")) {
      String[] idAddress = p.trim().split("=", 2);
      int colon = idAddress.length == 2 ? idAddress[1].lastIndexOf(':') : -1;
      if (colon < 0) {
        throw new Checks.UsageException(option + ": '" + p + "' is not id=host:port");
      }
      try {
        peers.add(new ReplicaPeer(idAddress[0], idAddress[1].substring(0, colon), Integer.parseInt(idAddress[1].substring(colon + 1))));
      } catch (NumberFormatException e) {
        throw new Checks.UsageException(option + ": the port of '" + p + "' is not a number");
      }
    }
    return peers;
  }

  static List<ReplicationGroup> groups(List<String> databases, List<ReplicaPeer> voters, List<ReplicaPeer> listeners) {
    return databases.stream().map(d -> new ReplicationGroup(d, voters, listeners)).toList();
  }
}
