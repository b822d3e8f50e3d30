package io.commitlane.bench.replica;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.replication.ForeignReplicaDirectoryException;
import io.commitlane.replication.MembershipMismatchException;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.storage.InvalidSettingsException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** A replica node in the foreground until it is stopped (Ctrl-C or SIGTERM close it cleanly). */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Run a replica node: host this node's replica of each database and serve until stopped (Ctrl-C or"
        + " SIGTERM close it; kill -9 loses no acknowledged commit). Settings come from commitlane.replication in"
        + " --config (defaults: the module's reference.conf). It also serves its replicas' status on its port + 1 (plain TCP), which replica status asks first. A node refuses to start a replica whose group agreed on"
        + " other members than --peers and --listeners, or whose directory holds another node's or another group's"
        + " replica; it says which and exits. With --join instead of --id, a node new to the group hosts empty replicas that join the running group, to be added by replica add; it refuses when no member answers, the group's members are not --peers and --listeners, or its directory holds another group's replica. Exit code 0: stopped, 1: failed to start or refused, 2: bad arguments.")
final class ReplicaRunCommand implements Callable<Integer> {
  @Option(names = "--id", description = "This node's id, one of --peers or --listeners")
  String id;

  @Option(names = "--join", paramLabel = "ID=HOST:PORT",
      description = "Instead of --id: this node, new to the group, with its id and address. It hosts an empty replica of"
          + " each database that joins the running group --peers and --listeners (the group as it is now, without this"
          + " node) and takes part once replica add added it; its directory holds no replica of these databases, or the"
          + " one it joined with before")
  String join;

  @Mixin
  ReplicaGroupOptions group;

  @Option(names = "--dir", required = true, paramLabel = "DIR", description = "This node's directory (its replicas live there)")
  Path directory;

  @Option(names = "--config", paramLabel = "FILE", description = "A HOCON file with commitlane.replication { ... }")
  Path config;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    List<ReplicaPeer> voters = group.voters();
    List<ReplicaPeer> readers = group.listeners();
    if ((id == null) == (join == null)) {
      throw new Checks.UsageException("give --id (a member of the group) or --join (a node joining it), one of them");
    }
    ReplicaPeer self;
    if (join != null) {
      List<ReplicaPeer> joining = ReplicaCommand.peers(join, "--join");
      if (joining.size() != 1) {
        throw new Checks.UsageException("--join: give this node alone, id=host:port");
      }
      self = joining.get(0);
      if (Stream.concat(voters.stream(), readers.stream()).anyMatch(p -> p.id().equals(self.id()))) {
        throw new Checks.UsageException("--join " + self.id() + " is one of --peers or --listeners already: start a member"
            + " with --id, and give --join the group as it is now, without this node");
      }
    } else {
      self = Stream.concat(voters.stream(), readers.stream()).filter(p -> p.id().equals(id)).findFirst()
          .orElseThrow(() -> new Checks.UsageException("--id " + id + " is not one of --peers or --listeners"));
    }
    if (config != null && !Files.isRegularFile(config)) {
      throw new Checks.UsageException("--config " + config + " is not a file");
    }
    PrintWriter out = spec.commandLine().getOut();
    ReplicaNodeSettings settings;
    try {
      Config c = config == null ? ConfigFactory.empty() : ConfigFactory.parseFile(config.toFile());
      settings = ReplicaNodeSettings.fromConfig(self, directory, c);
    } catch (InvalidSettingsException | ConfigException e) {
      return refused(new IllegalArgumentException((config == null ? "" : config + ": ") + e.getMessage(), e));
    }
    ReplicaNode node;
    try {
      node = ReplicaNode.start(settings);
    } catch (ForeignReplicaDirectoryException e) {
      return refused(e);
    }
    ReplicaStatusEndpoint endpoint = null;
    try {
      endpoint = ReplicaStatusEndpoint.serve(self);
    } catch (IOException e) {
      spec.commandLine().getErr().println("commitlane replica run: no status endpoint on port " + ReplicaStatusEndpoint.port(self)
          + " (" + e.getMessage() + "); replica status asks this node over gRPC instead, which takes longer");
      spec.commandLine().getErr().flush();
    }
    for (ReplicationGroup g : group.groups()) {
      try {
        ReplicatedDatabase db = join != null ? node.join(g) : node.host(g);
        if (endpoint != null) {
          endpoint.add(db);
        }
      } catch (MembershipMismatchException | ForeignReplicaDirectoryException | ReplicaUnavailableException e) {
        if (endpoint != null) {
          endpoint.close();
        }
        node.close();
        return refused(e);
      }
      if (join != null) {
        out.printf("joined %s as %s at %s:%d in %s: waiting to be added (replica add --node %s=%s:%d)%n", g.database(), self.id(),
            self.host(), self.port(), directory, self.id(), self.host(), self.port());
      } else {
        out.printf("hosting %s as %s at %s:%d in %s%n", g.database(), self.id(), self.host(), self.port(), directory);
      }
    }
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    ReplicaStatusEndpoint serving = endpoint;
    Thread hook = new Thread(() -> {
      if (serving != null) {
        serving.close();
      }
      node.close();
      stopped.countDown();
    }, "commitlane-replica-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    stopped.await();
    return 0;
  }

  /** A refusal the operator acts on (its message says what to change): said plainly, without a stack trace. */
  private int refused(RuntimeException e) {
    spec.commandLine().getErr().println("commitlane replica run: refused to start: " + e.getMessage());
    spec.commandLine().getErr().flush();
    return Main.FAILED;
  }
}
