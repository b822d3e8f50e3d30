package io.commitlane.testkit;

import static io.commitlane.testkit.StoreDropWorkload.COMMITS;
import static io.commitlane.testkit.StoreDropWorkload.LOG;
import static io.commitlane.testkit.StoreDropWorkload.STORE;
import static io.commitlane.testkit.StoreDropWorkload.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.ReplayStats;
import io.commitlane.storage.Database;
import io.commitlane.storage.Store;
import io.commitlane.testkit.pekko.CommitlaneTest;
import io.commitlane.txlog.InspectionReport;
import io.commitlane.txlog.LogInspector;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 during a store drop, WAL off: after reopening (which finishes recorded drops, then
 * replays the transaction log) the store is either fully gone or fully present, never half; a
 * dropped store's writes are skipped by replay and counted; its log records stay readable.
 */
@CommitlaneTest
@ExtendWith(LogCapturingExtension.class)
class StoreDropCrashTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  /** Killed while the logical drop waits for a commit's claim: reopen finishes the drop. */
  @Test
  void aKillAfterTheLogicalDropLeavesTheStoreFullyGone() throws Exception {
    CrashRun run = CrashHarness.of(StoreDropWorkload.class, dir).args("at=logical").killAt("DROPPED_LOGICALLY").run();
    assertTrue(run.killed(), run.stderr());
    assertEquals(COMMITS, run.acknowledged().size());
    try (CommitlaneDatabase db = reopen()) {
      Database storage = db.storage();
      assertFalse(storage.storeNames().contains(STORE), "the recorded drop was finished at open");
      assertEquals(List.of(), storage.droppingStores());
      for (int i = 0; i < COMMITS; i++) {
        assertEquals(Integer.toString(i), str(storage.get(bytes("d/old-" + i))), "default-store write of old-" + i);
      }
      ReplayStats stats = db.replayStatsAtOpen().get(LOG);
      assertTrue(stats.transactions() >= COMMITS, String.valueOf(stats));
      // Two writes to the dropped store per acknowledged commit; the held commit's record may add one.
      assertTrue(stats.skippedWrites() == 2L * COMMITS || stats.skippedWrites() == 2L * COMMITS + 1, String.valueOf(stats));
      assertRecordsReadable(db);
      Store again = db.createStore(STORE).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertNull(storage.get(again, bytes("s/0")), "nothing of the dropped store comes back");
      assertNull(storage.get(again, bytes("shared")));
    }
    assertNoDropRecordLeft();
  }

  /** Killed before the drop was asked for: the store is fully there, replay restores all of it. */
  @Test
  void aKillBeforeTheDropLeavesTheStoreFullyPresent() throws Exception {
    CrashRun run = CrashHarness.of(StoreDropWorkload.class, dir).args("at=before").killAt("BEFORE_DROP").run();
    assertTrue(run.killed(), run.stderr());
    try (CommitlaneDatabase db = reopen()) {
      Store store = db.storage().findStore(STORE).orElseThrow();
      for (int i = 0; i < COMMITS; i++) {
        assertEquals(Integer.toString(i), str(db.storage().get(store, bytes("s/" + i))), "s/" + i);
      }
      assertEquals("old-" + (COMMITS - 1), str(db.storage().get(store, bytes("shared"))));
      assertEquals(0, db.replayStatsAtOpen().get(LOG).skippedWrites());
    }
    assertNoDropRecordLeft();
  }

  /**
   * The name was dropped and created again before the kill: replay must apply the new
   * generation's writes and skip the old one's, although both records name the same store.
   */
  @Test
  void replayTellsTheDroppedGenerationFromTheNewOneOfTheSameName() throws Exception {
    CrashRun run = CrashHarness.of(StoreDropWorkload.class, dir).args("at=recreated").killAt("RECREATED").run();
    assertTrue(run.killed(), run.stderr());
    assertEquals(2 * COMMITS, run.acknowledged().size());
    try (CommitlaneDatabase db = reopen()) {
      Database storage = db.storage();
      Store store = storage.findStore(STORE).orElseThrow();
      for (int i = 0; i < COMMITS; i++) {
        assertEquals(Integer.toString(i), str(storage.get(store, bytes("n/" + i))), "n/" + i);
        assertNull(storage.get(store, bytes("s/" + i)), "the old generation's s/" + i + " must not land in the new one");
        assertEquals(Integer.toString(i), str(storage.get(bytes("d/old-" + i))));
        assertEquals(Integer.toString(i), str(storage.get(bytes("d/new-" + i))));
      }
      assertEquals("new-" + (COMMITS - 1), str(storage.get(store, bytes("shared"))));
      assertEquals(new ReplayStats(2L * COMMITS, 2L * COMMITS, 0, 0, List.of()), db.replayStatsAtOpen().get(LOG));
      assertRecordsReadable(db);
    }
  }

  private CommitlaneDatabase reopen() {
    return Commitlane.get(testKit.system()).open(dir, StoreDropWorkload.settings(testKit.system()));
  }

  /** Every acknowledged record is readable, in order, whatever store its writes named. */
  private static void assertRecordsReadable(CommitlaneDatabase db) {
    List<String> entries = new ArrayList<>();
    try (LogReader reader = db.transactionLog(LOG).reader(ReadRequest.fromStart())) {
      for (LogRecord r; (r = reader.next()) != null; ) {
        entries.add(StandardCharsets.UTF_8.decode(r.entries().get(0).duplicate()).toString());
      }
    }
    for (int i = 0; i < COMMITS; i++) {
      assertEquals("old-" + i, entries.get(i));
    }
  }

  private void assertNoDropRecordLeft() throws Exception {
    Path records = dir.resolve("store-drops");
    if (Files.isDirectory(records)) {
      try (Stream<Path> left = Files.list(records)) {
        assertEquals(List.of(), left.toList());
      }
    }
    InspectionReport report = LogInspector.inspect(dir.resolve("txlog").resolve(LOG));
    assertTrue(report.clean(), String.valueOf(report));
  }

  private static String str(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
