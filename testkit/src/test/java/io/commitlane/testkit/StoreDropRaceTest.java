package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.pekko.CommitlaneTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store drop racing commits that write it, through the actor pipeline, with the interleaving
 * forced by stage barriers: commits held at ADMITTED (on the caller's thread), DEQUEUED,
 * VALIDATED (under their locks, before the write) and WRITTEN, plus a burst queued behind them.
 * Every commit admitted before the drop must finish and keep its acknowledgement; everything that
 * starts after it must fail with {@link StoreDroppedException}; the physical drop must come after
 * the last admitted commit finished.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class StoreDropRaceTest {
  private static final Duration T = Duration.ofSeconds(30);
  private static final int BURST = 16;
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open(String policy, int threads) {
    Map<String, Object> m = Map.of("wal", "off", "occ-validation", policy, "commit-threads", threads);
    return Commitlane.get(testKit.system()).open(dir,
        PipelineSettings.fromConfig(ConfigFactory.parseMap(m).atPath("commitlane").withFallback(testKit.system().settings().config())));
  }

  @ParameterizedTest(name = "occ-validation={0}, commit-threads={1}")
  @CsvSource({"parallel,1", "parallel,4", "serial,1", "serial,4"})
  void admittedCommitsFinishBeforeThePhysicalDropAndNewOnesAreRefused(String policy, int threads) throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    List<String> tags = new ArrayList<>(List.of("R", "V", "D", "A"));
    try (CommitlaneDatabase db = open(policy, threads); StageControl control = StageControl.install(db.storage())) {
      Store s = await(db.createStore("s"));
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.FINISHED && c.tag() != null) {
          events.add("finished " + c.tag());
        }
      });
      Barrier written = control.barrier(CommitStage.WRITTEN, "R");
      Barrier validated = control.barrier(CommitStage.VALIDATED, "V");
      Barrier dequeued = control.barrier(CommitStage.DEQUEUED, "D");
      Barrier admitted = control.barrier(CommitStage.ADMITTED, "A");

      List<CompletionStage<CommitResult>> inFlight = new ArrayList<>();
      inFlight.add(commit(db, "R", s));
      written.awaitArrival(T); // executor 1: written, claim still held
      inFlight.add(commit(db, "V", s));
      if (threads > 1) {
        validated.awaitArrival(T); // executor 2: validated, holding its locks, not written
      }
      inFlight.add(commit(db, "D", s));
      if (threads > 2) {
        dequeued.awaitArrival(T); // executor 3: taken from the queue, not validated
      }
      // ADMITTED runs on the caller's thread, after the claim: hold it on a thread of its own.
      CompletableFuture<CompletionStage<CommitResult>> a = CommitThread.start("admit-A", () -> commit(db, "A", s));
      admitted.awaitArrival(T);
      for (int i = 0; i < BURST; i++) {
        tags.add("b" + i);
        inFlight.add(commit(db, "b" + i, s)); // queued behind the held ones (or running, with spare executors)
      }
      Transaction late = db.begin().tag("late");
      late.put(s, b("late"), b("late")); // buffered before the drop, committed after it

      CompletionStage<Done> drop = db.dropStore("s");
      CompletionStage<Void> dropSeen = drop.thenRun(() -> events.add("dropped"));

      // Logical at once.
      assertFalse(drop.toCompletableFuture().isDone(), "admitted commits still claim the store");
      assertEquals(List.of("s"), db.storage().droppingStores());
      assertInstanceOf(StoreDroppedException.class, failure(db.commit(late)));
      assertThrows(StoreDroppedException.class, () -> db.begin().put(s, b("new"), b("new")));
      assertThrows(StoreDroppedException.class, () -> db.storage().get(s, b("R")));
      assertThrows(StoreDroppedException.class, () -> db.storage().put(s, b("new"), b("new")));
      db.storage().flush(); // a flush leaves the dropping store out and does not fail

      admitted.release();
      dequeued.release();
      validated.release();
      written.release();
      inFlight.add(a.get(30, TimeUnit.SECONDS));
      for (CompletionStage<CommitResult> c : inFlight) {
        assertTrue(await(c).version() > 0, "a commit admitted before the drop finishes and stays acknowledged");
      }
      await(dropSeen);

      assertEquals(tags.size() + 1, events.size(), String.valueOf(events));
      assertEquals("dropped", events.get(events.size() - 1), "the physical drop came after every admitted commit: " + events);
      for (String tag : tags) {
        assertTrue(events.contains("finished " + tag), tag + " finished");
        assertEquals(tag, str(db.storage().get(b(tag))), "the default-store write of " + tag + " is there");
      }
      assertEquals(List.of(), db.storage().droppingStores());
      assertFalse(db.storage().storeNames().contains("s"));
      db.storage().flush(); // RocksDB carries on: no background error from the drop
    }
    try (CommitlaneDatabase again = open(policy, threads)) {
      assertFalse(again.storage().storeNames().contains("s"));
      for (String tag : tags) {
        assertEquals(tag, str(again.storage().get(b(tag))));
      }
    }
  }

  /** The same name created again while commits still claim the old generation. */
  @ParameterizedTest(name = "occ-validation={0}")
  @ValueSource(strings = {"parallel", "serial"})
  void theNameIsCreatedAgainOnlyAfterTheOldGenerationIsGone(String policy) throws Exception {
    try (CommitlaneDatabase db = open(policy, 2); StageControl control = StageControl.install(db.storage())) {
      Store old = await(db.createStore("s"));
      Barrier beforeWrite = control.barrier(CommitStage.LOG_APPENDED, "old");
      CompletionStage<CommitResult> held = commit(db, "old", old);
      beforeWrite.awaitArrival(T);
      CompletionStage<Done> drop = db.dropStore("s");
      CompletionStage<Store> created = db.createStore("s");
      assertFalse(created.toCompletableFuture().isDone(), "RocksDB keeps the name until the old generation is dropped");
      beforeWrite.release();
      await(held);
      Store fresh = await(created);
      await(drop);
      assertNotEquals(old.generation(), fresh.generation());
      assertNull(db.storage().get(fresh, b("old")), "the old generation's write is not in the new one");
      await(commit(db, "new", fresh));
      assertEquals("new", str(db.storage().get(fresh, b("new"))));
      Transaction stale = db.begin();
      assertThrows(StoreDroppedException.class, () -> stale.put(old, b("x"), b("x")), "the old store stays dropped");
    }
  }

  private static CompletionStage<CommitResult> commit(CommitlaneDatabase db, String tag, Store s) {
    Transaction t = db.begin().tag(tag);
    t.put(s, b(tag), b(tag));
    t.put(b(tag), b(tag));
    return db.commit(t);
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletionStage<?> stage) {
    return assertThrows(ExecutionException.class, () -> await(stage)).getCause();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String str(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
