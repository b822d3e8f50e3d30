package io.commitlane.bench.cluster;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.harness.ContentionRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Sharded databases across nodes, all in this JVM on loopback ({@link LoopbackCluster}): commits/s
 * of a three-node cluster against a one-node cluster with the same clients and databases ({@link
 * ClusterThroughput}); the latency of one commit through the facade, through sharding to a local
 * owner, and through sharding to an owner on another node ({@link ClusterLatency}); and writes with
 * and without request ids ({@link ClusterRequestIds}). The load is {@link ShardedWriteLoad}.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, subcommands = {ClusterNode.class, ClusterHost.class, FailoverBench.class},
    description = "Cluster Sharding: 3 nodes against 1 (commits/s, clients on every node), and the remote hop's p50/p99 against a local commit.")
public final class ClusterBench implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--runs", defaultValue = "3", description = "Rounds, variants rotated. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--warmup", defaultValue = "1", description = "Warm-up seconds per measurement. Default: ${DEFAULT-VALUE}")
  double warmup;

  @Option(names = "--seconds", defaultValue = "3", description = "Measured seconds per measurement. Default: ${DEFAULT-VALUE}")
  double seconds;

  @Option(names = "--databases", defaultValue = "6", description = "Databases the clients commit to. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--clients", defaultValue = "4", description = "Clients per node of the 3-node cluster (the 1-node cluster gets 3x). Default: ${DEFAULT-VALUE}")
  int clients;

  @Option(names = "--in-flight", defaultValue = "8", description = "Commits each client keeps in flight. Default: ${DEFAULT-VALUE}")
  int inFlight;

  @Option(names = "--scenarios", split = ",", defaultValue = "throughput,latency",
      description = "throughput, latency and/or request-ids (the 1-node cluster's writes with and without request ids). Default: ${DEFAULT-VALUE}")
  List<String> scenarios;

  @Option(names = "--dir", description = "Directory for the databases (default: a temporary directory)")
  Path dir;

  @Override
  public Integer call() throws Exception {
    Checks.positive("--runs", runs);
    Checks.positive("--seconds", seconds);
    Checks.nonNegative("--warmup", warmup);
    Checks.range("--databases", databases, 1, 1000);
    Checks.range("--clients", clients, 1, 256);
    Checks.range("--in-flight", inFlight, 1, 1024);
    for (String s : scenarios) {
      if (!s.equals("throughput") && !s.equals("latency") && !s.equals("request-ids")) {
        throw Checks.usage("--scenarios: '" + s + "' is not throughput, latency or request-ids");
      }
    }
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-cluster-bench");
    List<ActorSystem<Void>> single = List.of();
    List<ActorSystem<Void>> three = List.of();
    try {
      System.out.println("starting a 1-node and a 3-node cluster in this JVM (loopback)...");
      single = LoopbackCluster.start("bench-single", 1, root.resolve("single"));
      if (scenarios.contains("throughput") || scenarios.contains("latency")) {
        three = LoopbackCluster.start("bench-three", 3, root.resolve("three"));
      }
      ShardedWriteLoad load = new ShardedWriteLoad(databases, clients, inFlight, warmup, seconds);
      StringBuilder out = new StringBuilder();
      if (scenarios.contains("throughput")) {
        out.append(new ClusterThroughput(runs, load).measure(single, three));
      }
      if (scenarios.contains("latency")) {
        out.append(new ClusterLatency(runs, warmup, seconds).measure(three, root.resolve("facade")));
      }
      if (scenarios.contains("request-ids")) {
        out.append(new ClusterRequestIds(runs, load).measure(single));
      }
      System.out.println();
      System.out.print(out);
      return 0;
    } finally {
      for (ActorSystem<Void> s : reverse(three)) {
        LoopbackCluster.terminate(s);
      }
      for (ActorSystem<Void> s : single) {
        LoopbackCluster.terminate(s);
      }
      if (dir == null) {
        ContentionRunner.deleteRecursively(root);
      }
    }
  }

  private static <T> List<T> reverse(List<T> l) {
    List<T> r = new ArrayList<>(l);
    java.util.Collections.reverse(r);
    return r;
  }
}
