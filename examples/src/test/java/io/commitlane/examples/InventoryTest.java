package io.commitlane.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseActor;
import io.commitlane.actors.DatabaseProtocol;
import java.nio.file.Path;
import java.time.Duration;
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
  /** Longer than the test kit's 3 s default: eight racing reservations on a loaded machine. */
  private static final Duration WAIT = Duration.ofSeconds(20);
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
    assertEquals(new Inventory.Stock("pen", 10), probe.receiveMessage(WAIT));

    for (int i = 0; i < 8; i++) {
      (i % 2 == 0 ? east : west).tell(new Inventory.Reserve("pen", 2, probe.ref()));
    }
    List<Inventory.Result> results = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      results.add(probe.receiveMessage(WAIT));
    }
    long reserved = results.stream().filter(r -> r instanceof Inventory.Stock).count();
    long refused = results.stream().filter(r -> r instanceof Inventory.OutOfStock).count();
    assertEquals(5, reserved, results.toString());
    assertEquals(3, refused, results.toString());
    west.tell(new Inventory.GetStock("pen", probe.ref()));
    assertEquals(new Inventory.Stock("pen", 0), probe.receiveMessage(WAIT));
    east.tell(new Inventory.Reserve("ink", 1, probe.ref()));
    assertInstanceOf(Inventory.OutOfStock.class, probe.receiveMessage(WAIT), "nothing was ever stocked");
  }

  /**
   * A read-only database: the reservation's read is served, its conditional write refused. The
   * refusal reaches the write's handler, and the caller is told the database could not do it.
   */
  @Test
  void aRefusedWriteIsReportedToItsCallerAndTheServiceKeepsRunning() throws Exception {
    Path path = dir.resolve("archive");
    try (CommitlaneDatabase db = Commitlane.get(testKit.system()).open(path)) {
      ActorRef<Inventory.Command> seeding = testKit.spawn(Inventory.create(db.ref()));
      TestProbe<Inventory.Result> probe = testKit.createTestProbe();
      seeding.tell(new Inventory.Restock("pen", 4, probe.ref()));
      assertEquals(new Inventory.Stock("pen", 4), probe.receiveMessage(WAIT));
      testKit.stop(seeding);
    }
    try (CommitlaneDatabase readOnly = Commitlane.get(testKit.system()).openReadOnly(path)) {
      ActorRef<Inventory.Command> inventory = testKit.spawn(Inventory.create(readOnly.ref()));
      TestProbe<Inventory.Result> probe = testKit.createTestProbe();
      inventory.tell(new Inventory.Reserve("pen", 1, probe.ref()));
      Inventory.Unavailable refused = assertInstanceOf(Inventory.Unavailable.class, probe.receiveMessage(WAIT));
      assertTrue(refused.why().contains("READ_ONLY"), refused.why());
      inventory.tell(new Inventory.GetStock("pen", probe.ref()));
      assertEquals(new Inventory.Stock("pen", 4), probe.receiveMessage(WAIT), "still running, nothing taken");
    }
  }
}
