package io.commitlane.bench.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.bench.harness.HostProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The replicated peer's other two nodes: a three-voter group on loopback ports (n1, n2, n3), with n2 and n3 each an
 * actor system in this JVM whose persistence plugins hold their replica open (one entity recovered on each opens
 * it). The measured system is n1: the loads create it (and create it again for a recovery) with {@link #config()}, and
 * run every entity there. n2 and n3 elect the leader before n1 starts, so n1 is a follower and every write goes to
 * a leader on another node: the case of two entities in three under Cluster Sharding, not the leader's. All three replicas run in this JVM, so they share its CPU and heap; replicas in processes of
 * their own would be fairer.
 */
final class PersistenceReplicaHosts implements AutoCloseable {
  private final Path dir;
  private final int[] ports;
  private final List<ActorSystem<Void>> hosts = new ArrayList<>();

  private PersistenceReplicaHosts(Path dir, int[] ports) {
    this.dir = dir;
    this.ports = ports;
  }

  /** Start n2 and n3 in {@code dir} and wait until their replicas are open and have elected a leader. */
  static PersistenceReplicaHosts start(Path dir) throws IOException, InterruptedException {
    PersistenceReplicaHosts h = new PersistenceReplicaHosts(dir, HostProcess.freePorts(3));
    try {
      PersistenceBenchEntity.Meters[] meters = new PersistenceBenchEntity.Meters[2];
      long[] attempts = new long[2];
      for (int i = 0; i < 2; i++) {
        int node = i + 2;
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "bench-n" + node, h.config(node));
        h.hosts.add(system);
        meters[i] = new PersistenceBenchEntity.Meters();
        // the plugins start, and open this node's replica, on their first use; recovery waits for a read barrier,
        // so both recoveries done means n2 and n3 elected a leader
        h.recoverOne(i, meters[i], ++attempts[i]);
      }
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (meters[0].recovered.sum() < 1 || meters[1].recovered.sum() < 1) {
        for (int i = 0; i < 2; i++) {
          // a recovery that failed (no leader yet when the journal's call timed out) stopped its entity: try again
          if (meters[i].recovered.sum() < 1 && meters[i].failed.sum() >= attempts[i]) {
            h.recoverOne(i, meters[i], ++attempts[i]);
          }
        }
        if (System.nanoTime() > deadline || attempts[0] + attempts[1] > 20) {
          throw new IllegalStateException("the replicas n2 and n3 did not open and elect a leader in 2 minutes or 20 recoveries ("
              + (attempts[0] + attempts[1] - 2) + " recoveries failed and were tried again)");
        }
        Thread.sleep(5); // the benchmark's wait for its own set-up, outside every measured window
      }
      return h;
    } catch (RuntimeException | InterruptedException e) {
      h.close();
      throw e;
    }
  }

  private void recoverOne(int host, PersistenceBenchEntity.Meters meters, long attempt) {
    String name = "host-n" + (host + 2) + "-" + attempt;
    hosts.get(host).systemActorOf(PersistenceBenchEntity.create(name, meters, false), name, Props.empty());
  }

  /** n1's config: the measured actor system's, entities on it. */
  Config config() {
    return config(1);
  }

  private Config config(int node) {
    StringBuilder voters = new StringBuilder();
    for (int i = 0; i < ports.length; i++) {
      voters.append(i == 0 ? "" : ", ").append("\"n").append(i + 1).append("=127.0.0.1:").append(ports[i]).append('"');
    }
    return ConfigFactory.parseString("""
        pekko.persistence.journal.plugin = "commitlane-persistence.journal"
        pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
        pekko.persistence.state.plugin = "commitlane-persistence.state"
        commitlane-persistence.replicated {
          database = events
          voters = [%s]
          listeners = []
          node = n%d
          directory = "%s"
        }
        pekko.loglevel = WARNING
        pekko.log-dead-letters = off
        """.formatted(voters, node, dir.resolve("n" + node).toString().replace("\\", "\\\\")))
        .withFallback(ConfigFactory.load()).resolve();
  }

  @Override
  public void close() {
    for (ActorSystem<Void> s : hosts) {
      s.terminate();
    }
    for (ActorSystem<Void> s : hosts) {
      s.getWhenTerminated().toCompletableFuture().orTimeout(120, TimeUnit.SECONDS).join();
    }
  }
}
