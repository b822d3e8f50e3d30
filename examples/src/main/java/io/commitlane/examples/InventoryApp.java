package io.commitlane.examples;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.micrometer.CommitlaneMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The {@link Inventory} service in a small program: the database opened through the {@link
 * Commitlane} extension, its meters bound to a Micrometer registry, a few restocks and
 * reservations, and the meters printed at the end.
 *
 * <pre>java -cp ... io.commitlane.examples.InventoryApp [database-directory]</pre>
 */
public final class InventoryApp {
  private InventoryApp() {}

  public static void main(String[] args) throws Exception {
    Path path = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("inventory");
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "inventory");
    try {
      CommitlaneDatabase db = Commitlane.get(system).open(path);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      new CommitlaneMetrics(db, "inventory", Duration.ZERO).bindTo(registry); // a snapshot per read: fine for a demo
      ActorRef<Inventory.Command> inventory = system.systemActorOf(Inventory.create(db.ref()), "inventory",
          org.apache.pekko.actor.typed.Props.empty());
      System.out.println(ask(system, inventory, r -> new Inventory.Restock("pen", 5, r)));
      for (int i = 0; i < 4; i++) {
        System.out.println(ask(system, inventory, r -> new Inventory.Reserve("pen", 2, r)));
      }
      for (Meter m : registry.getMeters()) {
        System.out.println(m.getId().getName() + " " + m.getId().getTags() + " " + m.measure());
      }
      db.close();
    } finally {
      system.terminate();
    }
  }

  private static Inventory.Result ask(ActorSystem<?> system, ActorRef<Inventory.Command> inventory,
      org.apache.pekko.japi.function.Function<ActorRef<Inventory.Result>, Inventory.Command> message) throws Exception {
    CompletionStage<Inventory.Result> reply = AskPattern.ask(inventory, message, Duration.ofSeconds(10), system.scheduler());
    return reply.toCompletableFuture().get();
  }
}
