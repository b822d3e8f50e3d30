package io.commitlane.bench.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.cluster.DatabaseSharding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/** Cluster nodes on 127.0.0.1: their config, and clusters of several nodes in this JVM for the cluster bench. */
public final class LoopbackCluster {
  private LoopbackCluster() {}

  /** {@code n} nodes of cluster {@code name} on loopback (free ports), joined and Up, sharing {@code data}. */
  public static List<ActorSystem<Void>> start(String name, int n, Path data) {
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(ActorSystem.create(Behaviors.empty(), name, nodeConfig(0, List.of(), data)));
    }
    for (ActorSystem<Void> node : nodes) {
      Cluster.get(node).manager().tell(Join.create(Cluster.get(nodes.get(0)).selfMember().address()));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (ActorSystem<Void> node : nodes) {
      while (countUp(node) < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the " + name + " cluster did not come up within 60 s");
        }
        try {
          Thread.sleep(50); // polling membership while it converges
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    return nodes;
  }

  private static long countUp(ActorSystem<Void> node) {
    long up = 0;
    for (var m : Cluster.get(node).state().getMembers()) {
      if (m.status() == MemberStatus.up()) {
        up++;
      }
    }
    return up;
  }

  /**
   * The config of a node: loopback, {@code port} (0 = any free port), the given seed nodes, the
   * split-brain resolver, Jackson CBOR for the protocol (from the cluster module), its databases
   * under {@code data} (null: none, a client-only node).
   */
  static Config nodeConfig(int port, List<String> seeds, Path data) {
    String seedList = seeds.stream().map(s -> "\"" + s + "\"").reduce((a, b) -> a + ", " + b).orElse("");
    return ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = cluster",
            "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
            "pekko.remote.artery.canonical.port = " + port,
            "pekko.cluster.seed-nodes = [" + seedList + "]",
            "pekko.cluster.downing-provider-class = \"" + DatabaseSharding.SPLIT_BRAIN_RESOLVER + "\"",
            "pekko.cluster.split-brain-resolver.active-strategy = keep-majority",
            "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
            "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]",
            "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"",
            "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = on",
            // The loads write up to ~100k ids a second for minutes; the default bound (100000 ids within 15
            // minutes, about 110 a second) would refuse most of them as overloaded. Retries here come within seconds.
            "commitlane.request-ids.window = 2 minutes",
            "commitlane.request-ids.max-ids = 20000000",
            data == null ? "" : "commitlane.cluster.data-dir = \"" + data.toAbsolutePath().toString().replace("\\", "/") + "\""))
        .withFallback(ConfigFactory.load());
  }

  /** Terminates {@code s} and waits up to a minute; a node that does not stop is reported, not thrown. */
  public static void terminate(ActorSystem<Void> s) {
    s.terminate();
    try {
      s.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("commitlane: " + s.name() + " did not terminate: " + e);
    }
  }
}
