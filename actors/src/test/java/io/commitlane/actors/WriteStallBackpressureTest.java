package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.actors.stream.KeyValue;
import io.commitlane.actors.stream.RecordWriter;
import io.commitlane.actors.stream.WriteOutcome;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.RocksDbStats;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.WriteStall;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A RocksDB write stall is backpressure: forced with the testkit's {@link WriteStall} (flushes
 * paused, 64 KiB memtables), writes stop, the commit executors wait inside RocksDB, the queue
 * fills, and from then on commits are refused (Java API and protocol) while streams wait in the
 * admission line. Stats say so while it lasts. When it ends every admitted commit completes, and
 * a reopen finds them all, with the WAL on and off.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class WriteStallBackpressureTest {
  @JUnit5TestKit static ActorTestKit testKit;

  private static final int THREADS = 2;
  private static final int CAPACITY = 8;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private CommitlaneDatabase open(boolean wal, Map<String, Object> more) {
    Map<String, Object> m = new HashMap<>();
    m.put("commit-threads", THREADS);
    m.put("commit-queue-capacity", CAPACITY);
    m.put("wal", wal ? "on" : "off");
    m.put("rocksdb.write-buffer-size", "64 KiB");
    m.put("rocksdb.max-write-buffers", 2);
    m.putAll(more);
    return CommitlaneDatabase.open(testKit.system(), dir, settings(testKit.system(), m));
  }

  private static byte[] key(String prefix, int i) {
    return (prefix + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i, int bytes) {
    byte[] v = new byte[bytes];
    Arrays.fill(v, (byte) i);
    return v;
  }

  private static CompletableFuture<CommitResult> put(CommitlaneDatabase db, int i) {
    Transaction t = db.begin();
    t.put(key("k", i), value(i, 4096));
    return db.commit(t).toCompletableFuture();
  }

  private static Throwable cause(CompletableFuture<?> f) {
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  private static String executorThreads(CommitlaneDatabase db) {
    return "commitlane-commit-" + db.pipeline().name + "-";
  }

  private static long held(CommitlaneDatabase db) {
    String prefix = executorThreads(db);
    return WriteStall.blockedWriters().stream().filter(n -> n.startsWith(prefix)).count();
  }

  /** RocksDB stops writes and every executor is inside a RocksDB write: nothing leaves the queue until the stall ends. */
  private static boolean settled(CommitlaneDatabase db, WriteStall stall) {
    if (!stall.writesStopped() || held(db) < THREADS) {
      return false;
    }
    // Seen again a millisecond later: a thread still inside a write then entered it after writes stopped.
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    return held(db) == THREADS;
  }

  /**
   * Commits key after key (asynchronously) until the stall has settled and the queue refuses one:
   * from then on the queue stays full. Returns the admitted commits by key; refused keys were not
   * written.
   */
  private static Map<Integer, CompletableFuture<CommitResult>> fill(CommitlaneDatabase db, WriteStall stall) {
    Map<Integer, CompletableFuture<CommitResult>> admitted = new LinkedHashMap<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (int i = 0; ; i++) {
      if (System.nanoTime() > deadline) {
        fail("the stall did not settle: " + stall.stats() + ", writers inside RocksDB " + WriteStall.blockedWriters());
      }
      boolean settled = settled(db, stall);
      CompletableFuture<CommitResult> c = put(db, i);
      if (!c.isCompletedExceptionally()) {
        admitted.put(i, c);
      } else if (!(cause(c) instanceof CommitQueueFullException)) {
        fail("refused for another reason than a full queue", cause(c));
      } else if (settled) {
        return admitted;
      } else {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // an executor is on its way into RocksDB
      }
    }
  }

  private static DatabaseStats protocolStats(CommitlaneDatabase db) {
    TestProbe<DatabaseProtocol.StatsReply> probe = testKit.createTestProbe();
    db.ref().tell(new DatabaseProtocol.GetStats(1, probe.ref()));
    return probe.expectMessageClass(DatabaseStats.class, WAIT);
  }

  private static void assertAllCommitted(Map<Integer, CompletableFuture<CommitResult>> admitted) throws Exception {
    for (CompletableFuture<CommitResult> c : admitted.values()) {
      c.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** Reopened with storage alone: every admitted commit is there, no refused one. */
  private void assertReopenHolds(boolean wal, Map<Integer, CompletableFuture<CommitResult>> admitted, int upTo) {
    assertFalse(Database.isOpen(dir));
    try (Database again = Database.open(dir, DatabaseOptions.defaults().withWal(wal))) {
      for (int i = 0; i < upTo; i++) {
        byte[] v = again.get(key("k", i));
        if (admitted.containsKey(i)) {
          assertArrayEquals(value(i, 4096), v, "admitted commit " + i);
        } else {
          assertNull(v, "refused commit " + i);
        }
      }
    }
  }

  @Test
  void creatingAStoreDuringAStopHoldsNeitherTheCallerNorTheDatabaseActor() throws Exception {
    CommitlaneDatabase db = open(true, Map.of());
    CompletionStage<Store> created;
    TestProbe<DatabaseProtocol.StoreReply> storeReplies = testKit.createTestProbe();
    try (WriteStall stall = WriteStall.force(db.storage())) {
      fill(db, stall);
      // RocksDB creates a column family in its write queue, behind the stopped write. The call returns at once.
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        created = caller.submit(() -> db.createStore("made-during-the-stall")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        caller.shutdownNow();
      }
      db.ref().tell(new DatabaseProtocol.CreateStore("also-made-during-the-stall", 3, storeReplies.ref()));
      DatabaseStats stats = protocolStats(db); // answered after the CreateStore: the actor was not held by it
      assertTrue(stats.writeStopped(), stats::toString);
      assertFalse(created.toCompletableFuture().isDone(), "the creation waits for the stall, off the caller's thread");
    }
    assertEquals("made-during-the-stall", await(created).name());
    assertEquals(3, storeReplies.expectMessageClass(DatabaseProtocol.StoreCreated.class, WAIT).correlation());
    db.close();
  }
}
