package io.commitlane.bench.harness;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The benchmarks' actor system. Pekko's own JVM shutdown hooks are off: on Ctrl-C the command
 * stops its measurement, reports, and only then terminates the system, instead of Pekko
 * terminating it under running commits.
 */
public final class BenchSystem {
  private BenchSystem() {}

  /** The application config (commitlane's reference.conf included) with Pekko's shutdown hooks off. */
  public static Config config() {
    return ConfigFactory.parseString("pekko.jvm-shutdown-hooks = off\npekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off")
        .withFallback(ConfigFactory.load());
  }

  public static ActorSystem<Void> start(String name, Config config) {
    return ActorSystem.create(Behaviors.empty(), name, config);
  }

  public static void stop(ActorSystem<?> system) throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
