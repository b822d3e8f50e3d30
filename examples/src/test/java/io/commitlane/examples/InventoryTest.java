package io.commitlane.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.commitlane.actors.DatabaseActor;
import io.commitlane.actors.DatabaseProtocol;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InventoryTest {
  private static ActorTestKit testKit;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void reservationsNeverOversellEvenWhenTheyRace() {
    ActorRef<DatabaseProtocol.Request> db = testKit.spawn(DatabaseActor.create(dir.resolve("shop")), "shop");
    // Two services over one database race for the same stock: conditional writes keep the count exact.
    ActorRef<Inventory.Command> east = testKit.spawn(Inventory.create(db), "east");
    ActorRef<Inventory.Command> west = testKit.spawn(Inventory.create(db), "west");
    TestProbe<Inventory.Result> probe = testKit.createTestProbe();
    east.tell(new Inventory.Restock("pen", 10, probe.ref()));
    assertEquals(new Inventory.Stock("pen", 10), probe.receiveMessage());

    for (int i = 0; i < 8; i++) {
      (i % 2 == 0 ? east : west).tell(new Inventory.Reserve("pen", 2, probe.ref()));
    }
    List<Inventory.Result> results = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      results.add(probe.receiveMessage());
    }
    long reserved = results.stream().filter(r -> r instanceof Inventory.Stock).count();
    long refused = results.stream().filter(r -> r instanceof Inventory.OutOfStock).count();
    assertEquals(5, reserved, results.toString());
    assertEquals(3, refused, results.toString());
    west.tell(new Inventory.GetStock("pen", probe.ref()));
    assertEquals(new Inventory.Stock("pen", 0), probe.receiveMessage());
    east.tell(new Inventory.Reserve("ink", 1, probe.ref()));
    assertInstanceOf(Inventory.OutOfStock.class, probe.receiveMessage(), "nothing was ever stocked");
  }
}
