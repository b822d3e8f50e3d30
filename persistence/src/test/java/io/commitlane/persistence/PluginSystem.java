package io.commitlane.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.testsupport.Stages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;

/** An actor system with commitlane's four plugins on the database at a path; closing it terminates the system. */
final class PluginSystem implements AutoCloseable {
  final ActorTestKit kit;

  PluginSystem(Path db) {
    this(db, "");
  }

  PluginSystem(Path db, String extra) {
    this.kit = ActorTestKit.create("plugins", config(db, extra));
  }

  static Config config(Path db, String extra) {
    return ConfigFactory.parseString(extra + "\n" + """
        pekko.persistence.journal.plugin = "commitlane-persistence.journal"
        pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
        pekko.persistence.state.plugin = "commitlane-persistence.state"
        commitlane-persistence.path = "%s"
        pekko.loglevel = WARNING
        """.formatted(db.toString().replace("\\", "\\\\"))).withFallback(ConfigFactory.load()).resolve();
  }

  ActorSystem<Void> system() {
    return kit.system();
  }

  static <T> T await(CompletionStage<T> stage) {
    return Stages.await(stage, Duration.ofSeconds(20));
  }

  /** The cause {@code stage} fails with (fails the test if it succeeds). */
  static Throwable failure(CompletionStage<?> stage) {
    return Stages.failure(stage, Duration.ofSeconds(20));
  }

  @Override
  public void close() {
    kit.shutdownTestKit();
    kit.system().getWhenTerminated().toCompletableFuture().orTimeout(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS).join();
  }
}
