package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.storage.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/named-stores.md's snippet, verbatim between the markers. */
class StoreReadmeExamplesTest {
  @TempDir
  Path dir;

  @Test
  void createAndDropAStore() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "readme-stores");
    try {
      byte[] key = "alice".getBytes(StandardCharsets.UTF_8);
      byte[] value = "token".getBytes(StandardCharsets.UTF_8);
      String outcome;
      Store sessions;
      Store again;
      // README: store-lifecycle
      CommitlaneDatabase db = Commitlane.get(system).open(dir);
      sessions = db.createStore("sessions").toCompletableFuture().get(10, TimeUnit.SECONDS);
      Transaction txn = db.begin();
      txn.put(sessions, key, value);
      CompletionStage<CommitResult> admitted = db.commit(txn);   // claims "sessions" at admission
      CompletionStage<Done> dropped = db.dropStore("sessions");   // logical now: new work on it fails typed
      admitted.toCompletableFuture().get(10, TimeUnit.SECONDS);   // admitted before the drop: it commits
      dropped.toCompletableFuture().get(10, TimeUnit.SECONDS);    // physical: after the last admitted commit
      try {
        db.storage().get(sessions, key);
        outcome = "still there";
      } catch (StoreDroppedException e) {                         // not retryable on this Store
        outcome = "dropped " + e.store();
      }
      again = db.createStore("sessions").toCompletableFuture().get(10, TimeUnit.SECONDS);  // a new, empty generation
      db.close();
      // end README
      assertEquals("dropped sessions", outcome);
      assertNotEquals(sessions.generation(), again.generation());
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
