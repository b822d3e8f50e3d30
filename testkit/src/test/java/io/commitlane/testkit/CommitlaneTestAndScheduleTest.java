package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.LogAppend;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.OccValidation;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.pekko.CommitlaneTest;
import io.commitlane.testkit.pekko.TestDatabase;
import io.commitlane.txlog.TransactionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class CommitlaneTestAndScheduleTest {
  private static final Duration T = Duration.ofSeconds(20);
  @JUnit5TestKit static ActorTestKit testKit;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static CompletionStage<CommitResult> logged(TestDatabase db, String tag, String key) {
    Transaction t = db.database().begin().tag(tag).useLog("main");
    t.put(b(key), b(tag));
    t.addLogEntry(b(tag));
    return db.database().commit(t);
  }

  /**
   * The flush-correlation race, end to end: A appends first but is held after its write,
   * before it finishes; B appends later and finishes. A RocksDB flush now holds both writes, yet
   * the recorded flushed position (where crash replay starts) must not pass A, whose log record
   * has not left the uncommitted set. Once A finishes, a flush may move past both.
   */
  @Test
  void flushCorrelationRaceAsASchedule(TestDatabase db) throws Exception {
    StageSchedule s = db.control().schedule(T, "A", "B", "C");
    s.release("C");
    CompletionStage<CommitResult> a = logged(db, "A", "a");
    CompletionStage<CommitResult> bb = logged(db, "B", "b");
    s.letReach("A", CommitStage.WRITTEN);    // A: appended and written, not finished
    try {
      s.letFinish("B");                      // B: appended after A, written, finished
    } catch (StageTimeoutException e) {
      throw new AssertionError(e.getMessage() + " | stats " + db.database().stats(), e);
    }
    LogAppend appendB = LogAppend.of(bb.toCompletableFuture().get(20, TimeUnit.SECONDS)).orElseThrow();
    TransactionLog log = db.database().internalTransactionLog("main");
    db.database().storage().flush(); // RocksDB now holds A's and B's writes on disk
    // What the transaction-log actor does with the flush event, done here synchronously so the
    // assertion does not depend on when the event arrives:
    log.onFlushCompleted(db.database().storage().latestSequenceNumber());
    long flushedWhileAHeld = log.flushedPosition();
    s.letFinish("A");
    LogAppend appendA = LogAppend.of(a.toCompletableFuture().get(20, TimeUnit.SECONDS)).orElseThrow();
    assertTrue(appendA.position() < appendB.position(), "A appended first");
    assertTrue(flushedWhileAHeld <= appendA.position(),
        "the flushed position passed A's unfinished record: replay after a crash would skip A");
    // Once A finished, a flush that holds a later write moves the flushed position past both,
    // here through the real path: RocksDB's event, the transaction-log actor.
    logged(db, "C", "c").toCompletableFuture().get(20, TimeUnit.SECONDS);
    db.database().storage().flush();
    new ActorTestKitProbe().awaitTrue(() -> log.flushedPosition() > appendB.position());
  }

  /**
   * No lost update under both policies, checked with the history checker, through the pipeline:
   * with merged write groups off and on, on four executors (groups form as the schedule allows),
   * and on one executor held at t0 until every other commit is queued (groups of up to 64 form
   * for certain, with conflicts inside them).
   */
  @ParameterizedTest(name = "{0} {1}")
  @org.junit.jupiter.params.provider.CsvSource({
      "parallel, off-4", "parallel, on-4", "parallel, on-1-held",
      "serial, off-4", "serial, on-4", "serial, on-1-held"})
  void concurrentReadModifyWritesFormASerializableHistory(String policy, String variant, ActorTestKit kit,
      @TempDir Path dir) throws Exception {
    boolean held = variant.endsWith("held");
    io.commitlane.actors.PipelineSettings settings = io.commitlane.actors.PipelineSettings.fromConfig(
        com.typesafe.config.ConfigFactory.parseMap(Map.of("occ-validation", policy, "commit-threads", held ? 1 : 4,
                "wal", "off", "write-groups.enabled", variant.startsWith("on") ? "on" : "off"))
            .atPath("commitlane").withFallback(kit.system().settings().config()));
    try (io.commitlane.actors.CommitlaneDatabase db = io.commitlane.actors.Commitlane.get(kit.system()).open(dir, settings);
        StageControl control = StageControl.install(db.storage())) {
      Barrier first = control.barrier(CommitStage.VALIDATED, held ? "t0" : "never");
      History history = new History();
      List<CompletableFuture<Void>> all = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String id = "t" + i;
        String key = "k" + (i % 3);
        Transaction t = db.begin().tag(id);
        byte[] old = t.get(b(key));
        String seen = old == null ? null : new String(old, StandardCharsets.UTF_8);
        String value = id;
        t.put(b(key), b(value));
        Map<String, String> reads = new HashMap<>();
        reads.put(key, seen);
        all.add(db.commit(t).toCompletableFuture().handle((r, err) -> {
          if (err == null) {
            history.committed(id, reads, Map.of(key, value), r.version());
          } else {
            assertTrue(err instanceof ConflictException || err.getCause() instanceof ConflictException, String.valueOf(err));
            history.failed(id, reads, Map.of(key, value));
          }
          return null;
        }));
        if (held && i == 0) {
          first.awaitArrival(java.time.Duration.ofSeconds(30)); // t0 taken alone; the rest queue behind it
        }
      }
      first.release();
      for (CompletableFuture<Void> f : all) {
        f.get(30, TimeUnit.SECONDS);
      }
      Map<String, String> finalState = new HashMap<>();
      for (int k = 0; k < 3; k++) {
        byte[] v = db.storage().get(b("k" + k));
        finalState.put("k" + k, v == null ? null : new String(v, StandardCharsets.UTF_8));
      }
      assertEquals(List.of(), history.check(finalState));
      assertTrue(history.attempts().stream().anyMatch(History.Attempt::committed));
      io.commitlane.storage.StorageStats storage = db.stats().storage();
      if (held) {
        assertTrue(storage.groups() >= 299 / 64, "299 queued commits go in groups of up to 64: " + storage);
        assertTrue(storage.groupConflicts() > 0, "three keys: members of a group conflict with each other");
      } else if (variant.startsWith("off")) {
        assertEquals(0, storage.groups());
      }
    }
  }

  /** Polls a condition with a deadline (the outcome, not the timing, is asserted). */
  private static final class ActorTestKitProbe {
    void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!condition.getAsBoolean()) {
        assertTrue(System.nanoTime() < deadline, "condition not reached in 20 s");
        Thread.onSpinWait();
      }
    }
  }

  @Test
  void oneTestKitPerClass(ActorTestKit first, ActorTestKit second) {
    assertTrue(first == second);
    assertTrue(first == testKit, "the static field marked @JUnit5TestKit holds the same kit");
  }
}
