package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.Refusals.expectFailed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.Refusals.FailedReply;
import io.commitlane.storage.BackgroundErrorException;
import io.commitlane.storage.DatabaseHealth;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.StorageException;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FAILED health through the pipeline, from a real fault: a damaged table file makes a
 * compaction fail with Corruption, which RocksDB does not recover from. The health says FAILED
 * (one WARN), commits are refused as not retryable through the facade and the protocol, resume()
 * fails at once, the close reports the final flush it could not make; once the cause is fixed, a
 * reopen replays from the transaction log every commit acknowledged since the last flush.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class FailedHealthPipelineTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir Path dir;

  private CommitlaneDatabase open(Path path) {
    return Commitlane.get(testKit.system()).open(path,
        PipelineTestSupport.settings(testKit.system(), Map.of("wal", "off", "commit-threads", 1)));
  }

  private static CompletableFuture<?> logged(CommitlaneDatabase db, String key, String value) {
    Transaction t = db.begin().useLog("main");
    t.put(b(key), b(value));
    t.addLogEntry(b(key + "=" + value));
    return db.commit(t).toCompletableFuture();
  }

  @Test
  void aDamagedTableFileFailsTheDatabaseAndAReopenLosesNothingAcknowledged() throws Exception {
    Path path = dir.resolve("db");
    CommitlaneDatabase db = open(path);
    // Unlogged, so the first flush writes the default store's table file alone: it is the one damaged.
    for (int i = 0; i < 200; i++) {
      db.storage().put(b("k" + i), b("old" + i));
    }
    db.storage().flush();
    List<Path> overwritten = tableFiles(path);
    assertEquals(1, overwritten.size(), "one table file, of the default store: " + overwritten);
    for (int i = 0; i < 200; i++) {
      logged(db, "k" + i, "new" + i).get(30, TimeUnit.SECONDS);
    }
    db.storage().flush();
    for (int i = 0; i < 10; i++) {
      logged(db, "unflushed" + i, "u" + i).get(30, TimeUnit.SECONDS); // acknowledged: in the log and the memtable only (WAL off)
    }
    flip(overwritten.get(0));

    LoggingTestKit.warn("FAILED (COMPACTION failed: Corruption").withLoggerName("io.commitlane.storage.BackgroundErrors")
        .withOccurrences(1).expect(testKit.system(), () -> {
          // Bounded, and clear of the memtable's keys: RocksDB compacts without flushing them first.
          ExecutionException e = assertThrows(ExecutionException.class,
              () -> db.compactAsync(KeyRange.between(b("k"), b("l")), true).toCompletableFuture().get(30, TimeUnit.SECONDS));
          assertInstanceOf(StorageException.class, e.getCause());
          return null;
        });
    DatabaseHealth health = db.stats().storage().health();
    assertEquals(DatabaseHealth.State.FAILED, health.state(), health::toString);
    assertTrue(health.error().startsWith("Corruption"), health::toString);

    // Commits are refused, not retryable: through the facade and through the protocol.
    ExecutionException refused = assertThrows(ExecutionException.class, () -> logged(db, "refused", "x").get(30, TimeUnit.SECONDS));
    BackgroundErrorException b = assertInstanceOf(BackgroundErrorException.class, refused.getCause());
    assertFalse(b.isRetryable());
    assertEquals(DatabaseHealth.State.FAILED, b.health().state());
    TestProbe<DatabaseProtocol.WriteReply> writes = testKit.createTestProbe();
    db.ref().tell(new DatabaseProtocol.Write(List.of(Mutation.put(b("refused-too"), b("x"))), null, 1, writes.ref()));
    FailedReply failed = expectFailed(writes, WAIT);
    assertEquals(FailureReason.STORAGE, failed.reason());
    assertFalse(failed.retryable());
    assertTrue(failed.message().contains("reopen"), failed.message());
    TestProbe<DatabaseProtocol.StatsReply> stats = testKit.createTestProbe();
    db.ref().tell(new DatabaseProtocol.GetStats(2, stats.ref()));
    DatabaseStats reported = stats.expectMessageClass(DatabaseStats.class, WAIT);
    assertEquals("FAILED", reported.health());
    assertTrue(reported.healthError().contains("Corruption"), reported.healthError());

    CompletableFuture<DatabaseHealth> resumed = db.storage().resume().toCompletableFuture();
    assertTrue(resumed.isCompletedExceptionally(), "resume() fails at once: RocksDB will not resume in place");
    assertEquals("new7", s(db.storage().get(b("k7"))), "reads go on");

    // The close cannot flush (RocksDB refuses): it says so; the log still holds what the memtable held.
    ExecutionException close = assertThrows(ExecutionException.class, () -> db.closeAsync().toCompletableFuture().get(60, TimeUnit.SECONDS));
    assertTrue(String.valueOf(close.getCause()).contains("flush"), String.valueOf(close.getCause()));

    flip(overwritten.get(0)); // the cause fixed (the damaged bytes as they were)
    try (CommitlaneDatabase reopened = open(path)) {
      assertTrue(reopened.stats().storage().health().isOk());
      assertEquals(10, reopened.replayStatsAtOpen().get("main").transactions(), "replayed from the log: "
          + reopened.replayStatsAtOpen());
      for (int i = 0; i < 200; i++) {
        assertEquals("new" + i, s(reopened.storage().get(b("k" + i))), "acknowledged " + i);
      }
      for (int i = 0; i < 10; i++) {
        assertEquals("u" + i, s(reopened.storage().get(b("unflushed" + i))), "acknowledged after the last flush " + i);
      }
      assertNull(reopened.storage().get(b("refused")), "a refused commit wrote nothing");
      assertNull(reopened.storage().get(b("refused-too")));
      await(logged(reopened, "after", "writable again"));
    }
  }

  private static List<Path> tableFiles(Path db) throws IOException {
    try (Stream<Path> files = Files.list(db)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".sst")).sorted().toList();
    }
  }

  /** Flips 16 bytes inside the first data block, through the file system, while RocksDB has the file open; again undoes it. */
  private static void flip(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer bytes = ByteBuffer.allocate(16);
      ch.read(bytes, 20);
      for (int i = 0; i < bytes.limit(); i++) {
        bytes.put(i, (byte) (bytes.get(i) ^ 0x5a));
      }
      ch.write(bytes.rewind(), 20);
    }
  }
}
