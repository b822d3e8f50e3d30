package io.commitlane.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * Several actor systems in this JVM on loopback (canonical port 0), joined into one cluster, each
 * running {@link DatabaseSharding} over one shared data root: the shared-volume deployment.
 */
final class TestCluster implements AutoCloseable {
  static final Duration UP_TIMEOUT = Duration.ofSeconds(30);

  /** The role of the nodes that host databases when a test has client-only nodes too. */
  static final String HOSTS = "databases";

  final List<ActorTestKit> nodes = new ArrayList<>();
  final List<DatabaseSharding> databases = new ArrayList<>();
  final Path dataRoot;

  private TestCluster(Path dataRoot) {
    this.dataRoot = dataRoot;
  }

  /** {@code n} nodes, joined and Up, each with databases registered. */
  static TestCluster start(int n, Path dataRoot, String extraConfig) {
    return start(n, 0, dataRoot, extraConfig);
  }

  /**
   * {@code hosting} nodes with role {@value #HOSTS}, then {@code clientOnly} nodes without it and
   * without a data directory ({@code commitlane.cluster.role} names the role on all), joined and
   * Up, each with databases registered. With no client-only nodes no role is set.
   */
  static TestCluster start(int hosting, int clientOnly, Path dataRoot, String extraConfig) {
    TestCluster c = new TestCluster(dataRoot);
    int n = hosting + clientOnly;
    try {
      for (int i = 0; i < n; i++) {
        Config config = clientOnly == 0 ? config(dataRoot, extraConfig)
            : i < hosting ? config(dataRoot, "pekko.cluster.roles = [" + HOSTS + "]\ncommitlane.cluster.role = " + HOSTS + "\n" + extraConfig)
            : clientConfig("commitlane.cluster.role = " + HOSTS + "\n" + extraConfig);
        c.nodes.add(ActorTestKit.create("commitlane-cluster", config));
      }
      Address first = c.address(0);
      for (ActorTestKit node : c.nodes) {
        Cluster.get(node.system()).manager().tell(Join.create(first));
      }
      c.awaitUp(n);
      for (ActorTestKit node : c.nodes) {
        c.databases.add(DatabaseSharding.init(node.system()));
      }
      c.awaitReady();
      return c;
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  /** A node's config without a data directory. */
  static Config clientConfig(String extraConfig) {
    return ConfigFactory.parseString(extraConfig)
        .withFallback(ConfigFactory.parseResources("cluster-test.conf"))
        .withFallback(ConfigFactory.load())
        .resolve();
  }

  static Config config(Path dataRoot, String extraConfig) {
    return ConfigFactory.parseString(extraConfig)
        .withFallback(ConfigFactory.parseString("commitlane.cluster.data-dir = \"" + dataRoot.toString().replace("\\", "/") + "\""))
        .withFallback(ConfigFactory.parseResources("cluster-test.conf"))
        .withFallback(ConfigFactory.load())
        .resolve();
  }

  ActorSystem<Void> system(int i) {
    return nodes.get(i).system();
  }

  Address address(int i) {
    return Cluster.get(system(i)).selfMember().address();
  }

  /** Wait until every live node sees {@code n} members Up. */
  void awaitUp(int n) {
    TestProbe<Object> probe = nodes.get(0).createTestProbe();
    probe.awaitAssert(UP_TIMEOUT, Duration.ofMillis(100), () -> {
      for (ActorTestKit node : nodes) {
        if (node.system().whenTerminated().isCompleted()) {
          continue;
        }
        long up = 0;
        for (var m : Cluster.get(node.system()).state().getMembers()) {
          if (m.status() == MemberStatus.up()) {
            up++;
          }
        }
        assertEquals(n, up, "members Up as seen by " + Cluster.get(node.system()).selfMember().address());
      }
      return null;
    });
  }

  /**
   * Wait until sharding's coordinator knows every node's region: before that, a fresh cluster's
   * first requests wait for the coordinator's state and the regions' registration (seconds under
   * load), longer than a test's short ask timeout.
   */
  void awaitReady() {
    for (int i = 0; i < databases.size(); i++) {
      try {
        databases.get(i).whenReady().toCompletableFuture().get(UP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new AssertionError("sharding on node " + i + " was not ready within " + UP_TIMEOUT, e);
      }
    }
  }

  /** The index of the node whose address is {@code address}. */
  int indexOf(String address) {
    for (int i = 0; i < nodes.size(); i++) {
      if (address(i).toString().equals(address)) {
        return i;
      }
    }
    throw new AssertionError("no node at " + address);
  }

  /**
   * Stop every node, newest first, one at a time: each leaves while a leader that is not leaving
   * can remove it (nodes leaving together wait out the exiting phase's timeout).
   */
  @Override
  public void close() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      nodes.get(i).system().terminate();
      awaitTerminated(i);
    }
  }

  void awaitTerminated(int i) {
    try {
      system(i).getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("node " + i + " did not terminate within 30 s", e);
    }
  }
}
