package io.commitlane.persistence;

import static io.commitlane.persistence.JournalProtocol.atomic;
import static io.commitlane.persistence.JournalProtocol.event;
import static io.commitlane.persistence.PluginSystem.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.persistence.internal.plugin.PluginStores;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.Done;
import org.apache.pekko.persistence.JournalProtocol.WriteMessageSuccess;
import org.apache.pekko.persistence.JournalProtocol.WriteMessagesFailed;
import org.apache.pekko.persistence.JournalProtocol.WriteMessagesSuccessful$;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Coordinated shutdown's drain: writes already started finish (their persist handlers run), later ones are refused. */
class ShutdownTest {
  @TempDir
  Path dir;

  @Test
  void theDrainWaitsForAWriteInFlightAndRefusesLaterOnes() {
    Path db = dir.resolve("db");
    // A second journal on the same database: its replies are not queued behind the first journal's (Pekko delivers a
    // journal's replies in request order).
    try (PluginSystem plugins = new PluginSystem(db, "second-journal = ${commitlane-persistence.journal}")) {
      JournalProtocol journal = new JournalProtocol(plugins);
      journal.write(atomic(event("p", 1, "before")));
      journal.expect(WriteMessagesSuccessful$.class);
      journal.expect(WriteMessageSuccess.class);

      // A second handle of the plugins' database (same settings), to hold the next commit at a stage.
      CommitlaneDatabase handle = Commitlane.get(plugins.system()).open(
          CommitlanePersistence.path(plugins.system(), "commitlane-persistence.journal"),
          CommitlanePersistence.databaseConfig(plugins.system(), "commitlane-persistence.journal"));
      CompletableFuture<Done> drained;
      try (StageControl control = StageControl.install(handle.storage())) {
        Barrier held = control.barrier(CommitStage.VALIDATED, StageControl.any());
        journal.write(atomic(event("p", 2, "in flight at shutdown")));
        held.awaitArrival(Duration.ofSeconds(20));

        drained = PluginStores.get(plugins.system()).drainAll().toCompletableFuture();
        JournalProtocol late = new JournalProtocol(plugins, "second-journal");
        late.write(atomic(event("q", 1, "after the drain started")));
        assertInstanceOf(DatabaseClosedException.class, late.expect(WriteMessagesFailed.class).cause());
        assertFalse(drained.isDone(), "the drain waits for the write it let in");

        held.release();
        journal.expect(WriteMessagesSuccessful$.class);
        journal.expect(WriteMessageSuccess.class);
        await(drained);
      } finally {
        handle.close();
      }
    }
    try (PluginSystem again = new PluginSystem(db)) {
      assertEquals(List.of("before", "in flight at shutdown", "highest=2"), new JournalProtocol(again).replay("p"));
      assertEquals(List.of("highest=0"), new JournalProtocol(again).replay("q"));
    }
  }
}
