package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testsupport.DocSnippets;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.CheckpointInfo;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.RestoreOptions;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snippets of docs/operations.md (section "Backups, checkpoints and restore": the facade, the
 * protocol's Backup, restore, read-only opens): they run here, and the page holds them verbatim.
 */
class OperationsDocsExamplesTest {
  private static final Path PAGE = Path.of("..", "docs", "operations.md");
  private static final Path SOURCE = Path.of("src", "test", "java", "io", "commitlane", "actors",
      "OperationsDocsExamplesTest.java");

  @TempDir
  Path dir;

  @Test
  void checkpointBackUpRestoreAndOpenReadOnly() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "docs-operations");
    Path data = dir.resolve("orders");
    Path backupDir = dir.resolve("backups");
    Path copy = dir.resolve("orders-copy");
    Path restored = dir.resolve("orders-restored");
    try {
      CommitlaneDatabase db = Commitlane.get(system).open(data);
      Transaction txn = db.begin().useLog("orders");
      txn.put("order-1".getBytes(StandardCharsets.UTF_8), "paid".getBytes(StandardCharsets.UTF_8));
      db.commit(txn).toCompletableFuture().get(10, TimeUnit.SECONDS);

      // docs: backup-protocol
      // One reply when the backup is complete; it runs on the lifecycle dispatcher, not on the database actor.
      DatabaseProtocol.BackupReply reply = AskPattern.<DatabaseProtocol.Request, DatabaseProtocol.BackupReply>ask(db.ref(),
              replyTo -> new DatabaseProtocol.Backup(backupDir, 1L, replyTo), Duration.ofMinutes(10), system.scheduler())
          .toCompletableFuture().get(10, TimeUnit.MINUTES);
      if (reply instanceof DatabaseProtocol.BackedUp done) {
        System.out.println("backup " + done.backup().id() + ": " + done.backup().sizeBytes() + " bytes");
      } else if (reply instanceof DatabaseProtocol.BackupRefused refused
          && refused.refusal() instanceof DatabaseProtocol.Failed failed) {  // IN_USE (retryable), NO_SPACE, INVALID_REQUEST, ...
        System.out.println(failed.reason() + (failed.retryable() ? ", send it again later: " : ": ") + failed.message());
      }
      // end docs
      assertEquals(1, ((DatabaseProtocol.BackedUp) reply).backup().id());

      // docs: backup-live
      // A checkpoint: a hard-linked copy beside the database, openable as a database of its own.
      CheckpointInfo checkpoint = db.checkpoint(copy).toCompletableFuture().get(1, TimeUnit.MINUTES);

      // A backup: incremental, checksummed, taken while commits go on (off the caller's thread).
      BackupStore backups = BackupStore.at(backupDir);
      BackupInfo backup = db.backup(backups, (phase, done, total) -> System.out.println(phase + " " + done + "/" + total))
          .get(10, TimeUnit.MINUTES);            // or cancel(true) to stop it at its next step
      backups.purge(7);                          // keep the newest seven
      db.close();
      // end docs
      assertEquals(copy.toAbsolutePath().normalize(), checkpoint.path());

      // docs: restore
      backups.verify(backup.id(), true);         // every file against its SHA-256, then restore and read it all
      backups.restore(backup.id(), restored, RestoreOptions.defaults());   // into a missing or empty directory

      // Look before it goes into service: read-only, nothing replayed, nothing written. It lacks the
      // writes of the log records a normal open replays: `./commitlane db stats` counts them.
      try (Database look = Database.openReadOnly(restored)) {
        System.out.println(look.storeNames() + " " + look.count(io.commitlane.storage.KeyRange.all()));
      }
      // end docs
      try (Database look = Database.openReadOnly(restored)) {
        try {
          look.put("x".getBytes(StandardCharsets.UTF_8), "y".getBytes(StandardCharsets.UTF_8));
          throw new AssertionError("a read-only database took a write");
        } catch (ReadOnlyDatabaseException expected) {
          // refused, as documented
        }
      }
      byte[] key = "order-2".getBytes(StandardCharsets.UTF_8);
      byte[] value = "paid".getBytes(StandardCharsets.UTF_8);
      // docs: read-only
      CommitlaneDatabase look = Commitlane.get(system).openReadOnly(restored);   // no executor thread is started
      System.out.println(look.stats().storage().health() + " " + look.storage().count(io.commitlane.storage.KeyRange.all()));
      look.ref();                                 // Get, MultiGet, Scan, Count, GetStats are answered
      CompletionStage<CommitResult> refused = look.commit(look.begin().put(key, value));  // fails: ReadOnlyDatabaseException
      look.close();
      // end docs
      ExecutionException e = assertThrows(ExecutionException.class, () -> refused.toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertInstanceOf(ReadOnlyDatabaseException.class, e.getCause());

      CommitlaneDatabase back = Commitlane.get(system).open(restored);
      assertEquals("paid", new String(back.storage().get("order-1".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
      back.close();
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void thePageHoldsEverySnippetVerbatim() throws IOException {
    String page = Files.readString(PAGE);
    List<String> snippets = DocSnippets.allInSource(Files.readString(SOURCE));
    assertEquals(4, snippets.size());
    for (String s : snippets) {
      assertTrue(page.contains(s), "docs/operations.md lacks this snippet of " + SOURCE + ":\n" + s);
    }
  }
}
