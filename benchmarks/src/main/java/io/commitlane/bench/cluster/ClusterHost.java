package io.commitlane.bench.cluster;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.bench.cli.Checks;
import io.commitlane.cluster.DatabaseSharding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A node that hosts sharded databases and does nothing else, until it is stopped (Ctrl-C or
 * SIGTERM: coordinated shutdown hands its databases off) or killed. The failover benchmark runs
 * its nodes with it; it logs the cluster's and the databases' INFO lines on stderr.
 */
@Command(name = "host", mixinStandardHelpOptions = true,
    description = "Run one cluster node on 127.0.0.1 that hosts databases and nothing else, until stopped.")
final class ClusterHost implements Callable<Integer> {
  @Option(names = "--port", required = true, description = "This node's port")
  int port;

  @Option(names = "--seeds", split = ",", required = true, description = "Seed nodes' ports on 127.0.0.1 (list)")
  List<Integer> seeds;

  @Option(names = "--data-dir", required = true, description = "Where databases live: the same directory for every node on this machine")
  Path dataDir;

  @Option(names = "--role", description = "The cluster role of nodes that host databases (commitlane.cluster.role); none: every node")
  String role;

  @Option(names = "--set", description = "A setting for this node's config, HOCON KEY=VALUE (repeatable), e.g. --set commitlane.cluster.ask-timeout=2s")
  List<String> settings = new ArrayList<>();

  /** The cluster's and the databases' INFO lines ("cluster up", "database ... opened on this node as owner epoch ..."). */
  static void logClusterLines() {
    ((Logger) LoggerFactory.getLogger("io.commitlane")).setLevel(Level.INFO);
    ((Logger) LoggerFactory.getLogger("org.apache.pekko.cluster")).setLevel(Level.INFO);
  }

  @Override
  public Integer call() throws Exception {
    Checks.range("--port", port, 1, 65535);
    seeds.forEach(p -> Checks.range("--seeds", p, 1, 65535));
    logClusterLines();
    List<String> seedAddresses = seeds.stream().map(p -> "pekko://commitlane@127.0.0.1:" + p).toList();
    StringBuilder extra = new StringBuilder("pekko.coordinated-shutdown.exit-jvm = on\n");
    if (role != null) {
      extra.append("pekko.cluster.roles = [\"").append(role).append("\"]\ncommitlane.cluster.role = \"").append(role).append("\"\n");
    }
    for (String s : settings) {
      extra.append(s).append('\n');
    }
    Config config = ConfigFactory.parseString(extra.toString()).withFallback(LoopbackCluster.nodeConfig(port, seedAddresses, dataDir));
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "commitlane", config);
    DatabaseSharding.init(system);
    system.getWhenTerminated().toCompletableFuture().join();
    return 0;
  }
}
