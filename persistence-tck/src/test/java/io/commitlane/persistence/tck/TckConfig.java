package io.commitlane.persistence.tck;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The TCK's actor-system config: commitlane's plugins on a fresh database in a temporary directory, local or
 * replicated.
 */
final class TckConfig {
  private TckConfig() {}

  /**
   * The plugins on a replicated database of three voters on loopback ports: the TCK's system hosts n1 through the
   * plugins' replicated section; n2 and n3 run in this JVM beside it, for the life of the JVM (the TCK has no hook
   * after its system terminates).
   */
  static Config replicated(String name) {
    Path dir;
    try {
      dir = Files.createTempDirectory("commitlane-tck-replicated-" + name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    java.util.List<io.commitlane.replication.ReplicaPeer> peers = new java.util.ArrayList<>();
    for (String id : java.util.List.of("n1", "n2", "n3")) {
      peers.add(new io.commitlane.replication.ReplicaPeer(id, "127.0.0.1", io.commitlane.testsupport.LoopbackPorts.freePort()));
    }
    io.commitlane.replication.ReplicationGroup group = new io.commitlane.replication.ReplicationGroup("tck-" + name, peers);
    for (io.commitlane.replication.ReplicaPeer other : peers.subList(1, 3)) {
      io.commitlane.replication.ReplicaNode.start(io.commitlane.replication.ReplicaNodeSettings.of(other, dir.resolve(other.id())))
          .host(group);
    }
    String voters = peers.stream().map(p -> "\"" + p.id() + "=127.0.0.1:" + p.port() + "\"")
        .collect(java.util.stream.Collectors.joining(", "));
    return ConfigFactory.parseString("""
        pekko.persistence.journal.plugin = "commitlane-persistence.journal"
        pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
        commitlane-persistence.replicated {
          database = "tck-%s"
          voters = [%s]
          node = n1
          directory = "%s"
        }
        # The first request starts the plugin, which starts its replica and waits for a leader.
        pekko.test.single-expect-default = 20s
        """.formatted(name, voters, dir.resolve("n1").toString().replace("\\", "/"))).withFallback(ConfigFactory.load());
  }

  static Config config(String name) {
    Path dir;
    try {
      dir = Files.createTempDirectory("commitlane-tck-" + name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ConfigFactory.parseString("""
        pekko.persistence.journal.plugin = "commitlane-persistence.journal"
        pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
        commitlane-persistence.path = "%s"
        # The first request starts the plugin, which opens its database: longer than the TCK's 3 s on a busy machine.
        pekko.test.single-expect-default = 10s
        """.formatted(dir.resolve("db").toString().replace("\\", "\\\\"))).withFallback(ConfigFactory.load());
  }
}
