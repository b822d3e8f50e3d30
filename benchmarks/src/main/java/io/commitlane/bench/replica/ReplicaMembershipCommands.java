package io.commitlane.bench.replica;

import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.replication.InvalidReplicaRequestException;
import io.commitlane.replication.MembershipMismatchException;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.storage.InvalidSettingsException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replica add} and {@code replica remove}: membership changes from a process that hosts no replica. */
final class ReplicaMembershipCommands {
  private ReplicaMembershipCommands() {}

  /** How long connecting and each request to the group waits for a leader. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** Adds a node that runs {@code replica run --join} to each database's group, as a voter or a listener. */
  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Add a node to each database's group, from any machine that reaches the group: the node must run"
          + " replica run --join with the same --peers, --listeners and --database. It catches up as a listener, then"
          + " becomes a voter (or stays a listener with --listener); the command waits until the group committed the"
          + " new configuration, at most --timeout-seconds per database. --peers and --listeners are the group as it"
          + " is now, without the node. Afterwards give every node's and client's member list the group with the node."
          + " Exit code 0: added, 1: refused or not done in time (the message says which and what to do), 2: bad arguments.")
  static final class Add implements Callable<Integer> {
    @Mixin
    ReplicaGroupOptions group;

    @Option(names = "--node", required = true, paramLabel = "ID=HOST:PORT", description = "The node to add: its id and Raft address")
    String node;

    @Option(names = "--listener", description = "Add it as a non-voting listener instead of a voter")
    boolean listener;

    @Option(names = "--timeout-seconds", defaultValue = "120", paramLabel = "SECONDS",
        description = "How long the new replica may take to catch up, per database (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
      List<ReplicaPeer> added = ReplicaCommand.peers(node, "--node");
      if (added.size() != 1) {
        throw new Checks.UsageException("--node: give one node, id=host:port");
      }
      Checks.range("--timeout-seconds", timeoutSeconds, 1, 86_400);
      ReplicaPeer peer = added.get(0);
      boolean voter = group.voters().stream().anyMatch(p -> p.id().equals(peer.id()));
      boolean listening = group.listeners().stream().anyMatch(p -> p.id().equals(peer.id()));
      if (voter || (listening && listener)) {
        throw new Checks.UsageException("--node " + peer.id() + " is a member already: give --peers and --listeners as the group"
            + " is now, without the node to add (a listener to promote to a voter is given in --listeners)");
      }
      PrintWriter out = spec.commandLine().getOut();
      for (ReplicationGroup g : group.groups()) {
        try (ReplicatedDatabase client = ReplicatedDatabase.connect(g, REQUEST_TIMEOUT)) {
          if (listener) {
            client.addListener(peer);
            out.printf("database %s: added %s at %s as a listener%n", g.database(), peer.id(), peer.host() + ":" + peer.port());
          } else {
            client.addReplica(peer, Duration.ofSeconds(timeoutSeconds));
            out.printf("database %s: added %s at %s as a voter (it caught up as a listener first)%n", g.database(), peer.id(), peer.host() + ":" + peer.port());
          }
          out.flush();
        } catch (MembershipMismatchException | ReplicaUnavailableException | InvalidSettingsException | InvalidReplicaRequestException e) {
          return failed(spec, "add", g.database(), e);
        }
      }
      return 0;
    }
  }

  /** Removes a node's replica from each database's group. */
  @Command(name = "remove", mixinStandardHelpOptions = true,
      description = "Remove a node's replica from each database's group, from any machine that reaches the group;"
          + " the command waits until the group committed the new configuration. --peers and --listeners are the group"
          + " as it is now, with the node. Then stop the node and delete its directory, and give every node's and"
          + " client's member list the group without it. Removing the leader makes another replica lead. Exit code 0:"
          + " removed, 1: refused (the message says which and what to do), 2: bad arguments.")
  static final class Remove implements Callable<Integer> {
    @Mixin
    ReplicaGroupOptions group;

    @Option(names = "--node", required = true, paramLabel = "ID", description = "The id of the node to remove")
    String node;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      boolean member = group.voters().stream().anyMatch(p -> p.id().equals(node))
          || group.listeners().stream().anyMatch(p -> p.id().equals(node));
      if (!member) {
        throw new Checks.UsageException("--node " + node + " is not one of --peers or --listeners: give the group as it is now,"
            + " with the node to remove");
      }
      PrintWriter out = spec.commandLine().getOut();
      for (ReplicationGroup g : group.groups()) {
        try (ReplicatedDatabase client = ReplicatedDatabase.connect(g, REQUEST_TIMEOUT)) {
          client.removeReplica(node);
          out.printf("database %s: removed %s; stop it and delete its directory%n", g.database(), node);
          out.flush();
        } catch (MembershipMismatchException | ReplicaUnavailableException | InvalidSettingsException | InvalidReplicaRequestException e) {
          return failed(spec, "remove", g.database(), e);
        }
      }
      return 0;
    }
  }

  /** A refusal the operator acts on: said plainly, without a stack trace. */
  private static int failed(CommandSpec spec, String command, String database, RuntimeException e) {
    spec.commandLine().getErr().println("commitlane replica " + command + ": database " + database + ": " + e.getMessage());
    spec.commandLine().getErr().flush();
    return Main.FAILED;
  }
}
