package io.commitlane.bench.replica;

import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicationGroup;
import java.util.List;
import picocli.CommandLine.Option;

/** The options that name replicated databases and their replicas, shared by {@code replica run} and {@code replica status}. */
final class ReplicaGroupOptions {
  @Option(names = "--peers", required = true, paramLabel = "ID=HOST:PORT,...", description = "The group's voters")
  String peers;

  @Option(names = "--listeners", paramLabel = "ID=HOST:PORT,...",
      description = "The group's non-voting replicas: they apply every commit but do not vote")
  String listeners;

  @Option(names = "--database", required = true, split = ",", paramLabel = "NAME",
      description = "Replicated databases (one Raft group each, with these replicas)")
  List<String> databases;

  List<ReplicaPeer> voters() {
    return ReplicaCommand.peers(peers);
  }

  List<ReplicaPeer> listeners() {
    return ReplicaCommand.peers(listeners, "--listeners");
  }

  List<ReplicationGroup> groups() {
    return ReplicaCommand.groups(databases, voters(), listeners());
  }
}
