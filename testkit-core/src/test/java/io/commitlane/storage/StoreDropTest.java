package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.internal.commit.WriteBuffer;
import io.commitlane.storage.internal.files.DropIntents;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Dropping and creating named stores on the storage API, with commits held at named stages by a
 * stage listener (no sleeps): the drop is logical at once, physical only after the last commit
 * that claimed the store, and a reopened database finishes a recorded drop.
 */
class StoreDropTest {
  private static final Duration T = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private Database open(OccValidation policy) {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false)
        .withSettings(CommitlaneSettings.defaults().withOccValidation(policy)));
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /**
   * A commit that claimed the store (it is inside commitSync, held at {@code stage}) keeps the
   * store from being physically dropped; everything that starts after the drop is refused typed.
   */
  @ParameterizedTest
  @CsvSource({"PARALLEL,VALIDATED", "PARALLEL,LOG_APPENDED", "PARALLEL,WRITTEN",
      "SERIAL,VALIDATED", "SERIAL,LOG_APPENDED", "SERIAL,WRITTEN"})
  void aDropWaitsForTheCommitThatClaimedTheStoreAndRefusesEverythingNew(OccValidation policy, CommitStage stage)
      throws Exception {
    try (Database db = open(policy)) {
      Store s = db.store("s");
      db.put(s, of("old"), of("1"));
      Transaction late = db.begin().put(s, of("late"), of("x")); // buffered before the drop, committed after
      List<String> events = new CopyOnWriteArrayList<>();
      Barrier hold = StageControl.install(db).barrier(stage, "A");
      db.addStageListener((st, c) -> {
        if (st == CommitStage.FINISHED && "A".equals(c.tag())) {
          events.add("A finished");
        }
      });
      CompletableFuture<CommitResult> a = start(() -> db.begin().tag("A").put(s, of("k"), of("A")).put(of("d"), of("A")).commitSync());
      hold.awaitArrival(T);

      CompletionStage<Void> drop = db.dropStore("s");
      drop.thenRun(() -> events.add("dropped"));
      assertFalse(drop.toCompletableFuture().isDone(), "A claims the store: no physical drop yet");
      assertEquals(List.of("s"), db.droppingStores());
      assertFalse(db.storeNames().contains("s"));
      assertTrue(s.isDropped());
      assertTrue(db.findStore("s").isEmpty());
      assertThrows(StoreDroppedException.class, () -> db.get(s, of("old")));
      assertThrows(StoreDroppedException.class, () -> db.put(s, of("n"), of("1")));
      assertThrows(StoreDroppedException.class, () -> db.begin().put(s, of("n"), of("1")));
      assertThrows(StoreDroppedException.class, () -> db.begin().get(s, of("old")));
      assertThrows(StoreDroppedException.class, () -> db.store("s"), "the name is taken until the physical drop");
      StoreDroppedException refused = assertThrows(StoreDroppedException.class, late::commitSync);
      assertEquals("s", refused.store());
      assertEquals(s.generation(), refused.generation());
      assertFalse(refused.isRetryable());
      assertEquals(Transaction.State.FAILED, late.state());
      assertEquals(1, s.state().claims(), "only A's claim is held; the refused ones gave theirs back");
      db.flush(); // leaves the dropping store out, does not fail

      hold.release();
      assertTrue(a.get(30, TimeUnit.SECONDS).version() > 0, "A was admitted before the drop: it commits");
      assertEquals("A", str(db.get(of("d"))));
      await(drop);
      assertEquals(List.of("A finished", "dropped"), events, "the physical drop came after A finished");
      assertEquals(List.of(), db.droppingStores());
      assertEquals(StoreState.Phase.DROPPED, s.state().phase());
      assertThrows(StoreDroppedException.class, () -> db.get(s, of("k")));
      try (Stream<Path> left = Files.list(dir.resolve(DropIntents.DIRECTORY))) {
        assertEquals(List.of(), left.toList(), "the drop record is gone");
      }
    }
    try (Database db = open(policy)) {
      assertFalse(db.storeNames().contains("s"), "a finished drop stays finished");
      assertEquals("A", str(db.get(of("d"))));
    }
  }

  @Test
  void aDropWithNoClaimIsPhysicalRightAwayAndTheNameCanBeCreatedAgainEmpty() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      Store old = db.store("s");
      db.put(old, of("k"), of("old"));
      await(db.dropStore("s"));
      Store fresh = db.store("s");
      assertNotEquals(old.generation(), fresh.generation());
      assertNull(db.get(fresh, of("k")), "a new generation starts empty");
      db.put(fresh, of("k"), of("new"));
      assertThrows(StoreDroppedException.class, () -> db.put(old, of("k"), of("zombie")));
      assertEquals(0, fresh.state().claims(), "a refused claim on the old generation never touches the new one");
      assertEquals("new", str(db.get(fresh, of("k"))));
    }
    try (Database db = open(OccValidation.PARALLEL)) {
      assertEquals("new", str(db.get(db.store("s"), of("k"))));
    }
  }

  /** createStore while the old generation is still claimed: it completes after the physical drop. */
  @Test
  void createStoreWaitsForTheEarlierGenerationsDrop() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      Store old = db.store("s");
      Barrier hold = StageControl.install(db).barrier(CommitStage.LOG_APPENDED, "A");
      CompletableFuture<CommitResult> a = start(() -> db.begin().tag("A").put(old, of("k"), of("A")).commitSync());
      hold.awaitArrival(T);
      CompletionStage<Void> drop = db.dropStore("s");
      assertFalse(drop.toCompletableFuture().isDone());
      CompletionStage<Store> created = db.createStore("s");
      assertFalse(created.toCompletableFuture().isDone(), "RocksDB keeps the name until the old generation is dropped");
      hold.release();
      a.get(30, TimeUnit.SECONDS);
      Store fresh = await(created);
      // The physical drop happened before createStore completed. The drop's own stage completes on
      // the drop thread too, possibly a moment after createStore's (CompletableFuture runs the
      // dependents of one completion in no promised order), so it is awaited, not polled.
      assertEquals(StoreState.Phase.DROPPED, old.state().phase(), "the old generation is dropped physically first");
      await(drop);
      assertNotEquals(old.generation(), fresh.generation());
      assertNull(db.get(fresh, of("k")), "A's write went into the old generation, which is gone");
      assertEquals(fresh, await(db.createStore("s")), "createStore of a live store returns it");
    }
  }

  @Test
  void badNamesAndUnknownOrDefaultStoresAreTypedErrors() throws Exception {
    Database closed;
    try (Database db = open(OccValidation.PARALLEL)) {
      assertThrows(InvalidStoreNameException.class, () -> db.dropStore(Store.DEFAULT));
      assertThrows(UnknownStoreException.class, () -> db.dropStore("nope"));
      assertThrows(InvalidStoreNameException.class, () -> db.store(""));
      assertThrows(InvalidStoreNameException.class, () -> db.store(null));
      assertThrows(InvalidStoreNameException.class, () -> db.store("a\u0000b"));
      assertThrows(InvalidStoreNameException.class, () -> db.createStore("x".repeat(StoreNames.MAX_BYTES + 1)));
      assertThrows(InvalidStoreNameException.class, () -> db.dropStore(""));
      db.store("x".repeat(StoreNames.MAX_BYTES)); // the longest name is fine
      db.store("s");
      CompletionStage<Void> first = db.dropStore("s");
      await(first);
      assertThrows(UnknownStoreException.class, () -> db.dropStore("s"), "a finished drop leaves no store of that name");
      assertEquals(List.of(Store.DEFAULT), db.storeNames().stream().filter(n -> n.length() < 10).toList());
      closed = db;
    }
    assertThrows(DatabaseClosedException.class, () -> closed.dropStore("x"));
  }

  @Test
  void droppingADroppingStoreReturnsTheSameOutcome() throws Exception {
    try (Database db = open(OccValidation.PARALLEL)) {
      Store s = db.store("s");
      Barrier hold = StageControl.install(db).barrier(CommitStage.VALIDATED, "A");
      CompletableFuture<CommitResult> a = start(() -> db.begin().tag("A").put(s, of("k"), of("A")).commitSync());
      hold.awaitArrival(T);
      CompletionStage<Void> one = db.dropStore("s");
      CompletionStage<Void> two = db.dropStore("s");
      assertFalse(two.toCompletableFuture().isDone());
      hold.release();
      a.get(30, TimeUnit.SECONDS);
      await(one);
      await(two);
    }
  }

  /** A crash after the intent was recorded and before the physical drop: reopening finishes it. */
  @Test
  void reopenFinishesARecordedDrop() throws Exception {
    int generation;
    try (Database db = open(OccValidation.PARALLEL)) {
      Store s = db.store("s");
      db.put(s, of("k"), of("v"));
      db.flush();
      generation = s.generation();
    }
    new DropIntents(dir).persist(generation, "s"); // what dropStore records before the store refuses claims
    try (Database db = open(OccValidation.PARALLEL)) {
      assertFalse(db.storeNames().contains("s"), "fully gone");
      assertTrue(new DropIntents(dir).pending().isEmpty());
      Store again = db.store("s");
      assertNotEquals(generation, again.generation());
      assertNull(db.get(again, of("k")), "nothing of the dropped generation comes back");
    }
  }

  /** An intent for an older generation (its drop finished, the record's delete did not) leaves the new store alone. */
  @Test
  void reopenIgnoresARecordOfAnOlderGenerationAndATornRecord() throws Exception {
    int oldGeneration;
    try (Database db = open(OccValidation.PARALLEL)) {
      Store old = db.store("s");
      oldGeneration = old.generation();
      await(db.dropStore("s"));
      db.put(db.store("s"), of("k"), of("new"));
      db.flush();
    }
    new DropIntents(dir).persist(oldGeneration, "s");
    Files.writeString(dir.resolve(DropIntents.DIRECTORY).resolve("12345.drop.tmp"), "s"); // a crash mid-write
    try (Database db = open(OccValidation.PARALLEL)) {
      assertEquals("new", str(db.get(db.store("s"), of("k"))), "fully present");
      try (Stream<Path> left = Files.list(dir.resolve(DropIntents.DIRECTORY))) {
        assertEquals(List.of(), left.toList());
      }
    }
  }

  /** Options naming a store whose drop was recorded: the drop finishes, then the store is created afresh. */
  @Test
  void reopenWithTheDroppedStoreInItsOptionsCreatesANewGeneration() throws Exception {
    int generation;
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("s"))) {
      Store s = db.store("s");
      db.put(s, of("k"), of("v"));
      generation = s.generation();
    }
    new DropIntents(dir).persist(generation, "s");
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("s"))) {
      Store s = db.store("s");
      assertNotEquals(generation, s.generation());
      assertNull(db.get(s, of("k")));
    }
  }

  /**
   * The second line of defence: a write that reaches RocksDB without a claim on a store whose
   * physical drop started fails typed, before any native call, and the log hook unwinds its append.
   */
  @Test
  void anUnclaimedWriteIntoADroppedStoreFailsTypedBeforeTheRocksDbWrite() throws Exception {
    try (Database db = open(OccValidation.SERIAL)) {
      Store s = db.store("s");
      List<String> hook = new CopyOnWriteArrayList<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void beforeWrite(PendingCommit c) {
          hook.add("appended");
        }

        @Override
        public void aborted(PendingCommit c, Throwable cause) {
          hook.add("aborted: " + cause.getClass().getSimpleName());
        }
      });
      WriteBuffer w = new WriteBuffer(1);
      w.put(s, of("k"), of("v"));
      await(db.dropStore("s"));
      // Bypass the claim the public API takes, as a commit path that forgot it would.
      PendingCommit c = new PendingCommit(1, null, w, null, Long.MAX_VALUE, true, "log", List.of(), null);
      assertThrows(StoreDroppedException.class, () -> db.shared().commitPath().commit(c));
      assertEquals(List.of("appended", "aborted: StoreDroppedException"), hook);
      db.put(of("after"), of("fine")); // the database carries on
      assertEquals("fine", str(db.get(of("after"))));
    }
  }

  /** Closing with a drop handed over to the drop thread finishes it; the reopened database agrees. */
  @Test
  void closeRightAfterADropLeavesItFinished() throws Exception {
    Database db = open(OccValidation.PARALLEL);
    db.put(db.store("s"), of("k"), of("v"));
    CompletionStage<Void> drop = db.dropStore("s");
    db.close(); // the last handle: the close runs the drop it finds handed over before closing RocksDB
    await(drop);
    try (Database again = open(OccValidation.PARALLEL)) {
      assertFalse(again.storeNames().contains("s"));
      assertTrue(new DropIntents(dir).pending().isEmpty());
    }
  }

  /** A storage user closing the database from the drop's own callback (on the drop thread) must not wait for itself. */
  @Test
  void closingFromTheDropsOwnCallbackDoesNotDeadlock() throws Exception {
    Database db = open(OccValidation.PARALLEL);
    db.store("s");
    await(db.dropStore("s").thenRun(db::close));
    assertTrue(db.isClosed());
    assertFalse(Database.isOpen(dir));
  }

  private static <T> CompletableFuture<T> start(java.util.function.Supplier<T> work) {
    CompletableFuture<T> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(work.get());
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "store-drop-test-commit");
    t.setDaemon(true);
    t.start();
    return f;
  }
}
