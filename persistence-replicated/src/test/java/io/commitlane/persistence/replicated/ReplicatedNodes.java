package io.commitlane.persistence.replicated;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.plugin.PluginStores;
import io.commitlane.testsupport.DocSnippets;
import io.commitlane.testsupport.LoopbackPorts;
import io.commitlane.testsupport.Stages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Three actor systems in this JVM, each a node of a replicated group on loopback ports with the four plugins on
 * it, each hosting its own replica (voters n1, n2, n3), configured with the settings docs/persistence.md shows. Closing it terminates every system (their replicas close).
 */
final class ReplicatedNodes implements AutoCloseable {
  static final String JOURNAL = "commitlane-persistence.journal";

  final List<ActorTestKit> kits = new ArrayList<>();
  final List<PluginStores.Lease> leases = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();

  ReplicatedNodes(Path dir) {
    for (int i = 0; i < 3; i++) {
      ports.add(LoopbackPorts.freePort());
    }
    for (int i = 0; i < 3; i++) {
      kits.add(ActorTestKit.create("node" + (i + 1), config(dir, i)));
    }
    // Every node's plugins open their replica: a majority must be up before the first write commits.
    List<CompletableFuture<PluginStores.Lease>> opening = new ArrayList<>();
    for (ActorTestKit kit : kits) {
      opening.add(PluginStores.get(kit.system()).acquire(PluginSettings.read(kit.system().settings().config(), JOURNAL))
          .toCompletableFuture());
    }
    opening.forEach(o -> leases.add(await(o)));
  }

  /**
   * Node {@code node}'s config: docs/persistence.md's replicated settings as shown, with the loopback ports of this
   * run for the shown addresses, and this node's id and directory.
   */
  Config config(Path dir, int node) {
    String shown = DocSnippets.fenced(DocSnippets.read(DocSnippets.root().resolve("docs/persistence.md")),
        "<!-- docs: replicated-settings", "hocon");
    String settings = shown;
    for (int i = 0; i < ports.size(); i++) {
      String address = "n" + (i + 1) + "=10.0.0." + (i + 1) + ":7001";
      if (!settings.contains(address)) {
        throw new AssertionError("docs/persistence.md's replicated settings no longer show " + address);
      }
      settings = settings.replace(address, "n" + (i + 1) + "=127.0.0.1:" + ports.get(i));
    }
    settings = settings.replace("node = n1", "node = n" + (node + 1))
        .replace("\"data/replica\"", "\"" + dir.resolve("n" + (node + 1)).toString().replace("\\", "/") + "\"");
    return ConfigFactory.parseString("""
        pekko.persistence.journal.plugin = "commitlane-persistence.journal"
        pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
        pekko.persistence.state.plugin = "commitlane-persistence.state"
        pekko.loglevel = WARNING
        """ + settings).withFallback(ConfigFactory.load()).resolve();
  }

  ActorSystem<Void> system(int node) {
    return kits.get(node).system();
  }

  /** Node {@code node}'s store (the journal's, shared by every plugin of that node). */
  PluginStore store(int node) {
    return leases.get(node).store();
  }

  static <T> T await(CompletionStage<T> stage) {
    return Stages.await(stage, Duration.ofSeconds(30));
  }

  /** The cause {@code stage} fails with (fails the test if it succeeds). */
  static Throwable failure(CompletionStage<?> stage) {
    return Stages.failure(stage, Duration.ofSeconds(30));
  }

  @Override
  public void close() {
    for (PluginStores.Lease l : leases) {
      l.release();
    }
    for (ActorTestKit kit : kits) {
      kit.shutdownTestKit();
      kit.system().getWhenTerminated().toCompletableFuture().orTimeout(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS).join();
    }
  }
}
