package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.await;
import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.put;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mode = two-lane}: the log lane validates each commit and appends its log record, the
 * commit threads write it. The lanes are bounded together: a full write lane holds the log lane,
 * and then the admission queue fills and refuses.
 */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class TwoLanePipelineTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(int threads, int capacity) {
    Map<String, Object> m = new HashMap<>();
    m.put("mode", "two-lane");
    m.put("commit-threads", threads);
    m.put("commit-queue-capacity", capacity);
    m.put("wal", "off");
    m.put("txlog.durability", "process");
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(), m));
  }

  private static CompletionStage<CommitResult> logged(CommitlaneDatabase db, String tag, String key, String value) {
    Transaction t = db.begin().tag(tag).useLog("main");
    t.put(b(key), b(value));
    t.addLogEntry(b(key + "=" + value));
    return db.commit(t);
  }

  @Test
  void theLogLaneAppendsAndCommitThreadsWriteWhileCallbacksRunElsewhere() throws Exception {
    Map<String, String> appendedOn = new ConcurrentHashMap<>();
    Map<String, String> writtenOn = new ConcurrentHashMap<>();
    try (CommitlaneDatabase db = open(2, 64)) {
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.LOG_APPENDED) {
          appendedOn.put(String.valueOf(c.tag()), Thread.currentThread().getName());
        } else if (stage == CommitStage.WRITTEN) {
          writtenOn.put(String.valueOf(c.tag()), Thread.currentThread().getName());
        }
      });
      List<CompletionStage<String>> callbacks = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        callbacks.add(logged(db, "t" + i, "k" + i, "v" + i).thenApply(r -> Thread.currentThread().getName()));
      }
      for (CompletionStage<String> c : callbacks) {
        String thread = await(c);
        assertFalse(thread.startsWith("commitlane-"), "a callback ran on a lane's thread: " + thread);
      }
      assertEquals(50, appendedOn.size());
      assertTrue(appendedOn.values().stream().allMatch(n -> n.startsWith("commitlane-log-lane-")), appendedOn.toString());
      assertTrue(writtenOn.values().stream().allMatch(n -> n.startsWith("commitlane-commit-")), writtenOn.toString());
      PipelineStats stats = db.stats();
      assertEquals(50, stats.committed());
      assertEquals(0, stats.writeLaneDepth());
    }
    try (CommitlaneDatabase again = Commitlane.get(testKit.system()).open(dir)) {
      for (int i = 0; i < 50; i++) {
        assertEquals("v" + i, s(again.storage().get(b("k" + i))));
      }
    }
  }

  @Test
  void aConflictIsFoundOnTheLogLaneAndWritesNothing() throws Exception {
    try (CommitlaneDatabase db = open(2, 64)) {
      Transaction reader = db.begin().useLog("main");
      assertNull(reader.get(b("k")));
      await(logged(db, "w", "k", "w"));
      reader.put(b("k"), b("r"));
      reader.addLogEntry(b("k=r"));
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(db.commit(reader)));
      assertInstanceOf(ConflictException.class, e.getCause());
      assertEquals("w", s(db.storage().get(b("k"))));
      assertEquals(1, db.stats().conflicts());
      await(logged(db, "after", "k", "after")); // the conflict left no lock behind
      assertEquals("after", s(db.storage().get(b("k"))));
    }
  }

  @Test
  void aFullWriteLaneHoldsTheLogLaneSoTheAdmissionQueueFillsAndRefuses() throws Exception {
    try (CommitlaneDatabase db = open(1, 1); StageControl stages = StageControl.install(db.storage())) {
      Barrier writing = stages.barrier(CommitStage.WRITTEN, c -> "a".equals(c.tag()));
      Barrier appended = stages.barrier(CommitStage.LOG_APPENDED, c -> "c".equals(c.tag()));
      CompletionStage<CommitResult> a = logged(db, "a", "a", "1");
      writing.awaitArrivals(1, WAIT); // the only commit thread is busy with a
      CompletionStage<CommitResult> bStage = logged(db, "b", "b", "1");
      awaitWriteLaneDepth(db, 1); // b is prepared and fills the write lane
      CompletionStage<CommitResult> c = logged(db, "c", "c", "1");
      appended.awaitArrivals(1, WAIT); // the log lane took c: it can hand it over only when the lane has room
      appended.release();
      CompletionStage<CommitResult> d = logged(db, "d", "d", "1"); // the log lane cannot take it: it fills the queue
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(logged(db, "e", "e", "1")));
      assertInstanceOf(CommitQueueFullException.class, e.getCause());
      assertEquals(1, db.stats().overloaded());
      assertEquals(1, db.stats().writeLaneDepth());
      writing.release();
      for (CompletionStage<CommitResult> done : List.of(a, bStage, c, d)) {
        await(done);
      }
      for (String k : List.of("a", "b", "c", "d")) {
        assertEquals("1", s(db.storage().get(b(k))), k);
      }
      assertNull(db.storage().get(b("e")), "a refused commit wrote nothing");
    }
  }

  @Test
  void closeWaitsForCommitsInBothLanes() throws Exception {
    CommitlaneDatabase db = open(1, 8);
    StageControl stages = StageControl.install(db.storage());
    Barrier writing = stages.barrier(CommitStage.WRITTEN, c -> "a".equals(c.tag()));
    CompletionStage<CommitResult> a = logged(db, "a", "a", "1");
    writing.awaitArrivals(1, WAIT);
    CompletionStage<CommitResult> bStage = logged(db, "b", "b", "1");
    awaitWriteLaneDepth(db, 1);
    CompletionStage<org.apache.pekko.Done> closed = db.closeAsync();
    ExecutionException refused = assertThrows(ExecutionException.class, () -> await(logged(db, "late", "late", "1")));
    assertInstanceOf(DatabaseClosedException.class, refused.getCause());
    assertFalse(closed.toCompletableFuture().isDone(), "close waits for the commit in each lane");
    writing.release();
    await(a);
    await(bStage);
    await(closed);
    stages.close();
    try (Database again = Database.open(dir)) {
      assertEquals("1", s(again.get(b("a"))));
      assertEquals("1", s(again.get(b("b"))));
      assertNull(again.get(b("late")));
    }
  }

  @Test
  void manyConcurrentCommitsToFewKeysLoseNoUpdate() throws Exception {
    try (CommitlaneDatabase db = open(3, 4096)) {
      List<CompletionStage<CommitResult>> all = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        int n = i;
        all.add(db.transactAsync(1000, t -> {
          byte[] key = b("counter" + (n % 4));
          byte[] v = t.get(key);
          t.put(key, b(Integer.toString((v == null ? 0 : Integer.parseInt(s(v))) + 1)));
          t.useLog("main").addLogEntry(key);
          return (CommitResult) null;
        }));
      }
      for (CompletionStage<CommitResult> c : all) {
        await(c);
      }
      for (int k = 0; k < 4; k++) {
        assertEquals("100", s(db.storage().get(b("counter" + k))), "counter" + k);
      }
    }
  }

  /** Until the write lane holds {@code n} commits (the log lane hands them over on its own thread). */
  private static void awaitWriteLaneDepth(CommitlaneDatabase db, int n) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (db.stats().writeLaneDepth() != n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the write lane never held " + n + " commits: " + db.stats().writeLaneDepth());
      }
      Thread.onSpinWait();
    }
  }
}
