package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static io.commitlane.actors.PipelineTestSupport.s;
import static io.commitlane.actors.PipelineTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitResult;
import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import io.commitlane.txlog.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A range read lined up with a log position: rebuilding a projection misses no change and sees none twice. */
@ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
class FeedSnapshotTest {
  @JUnit5TestKit static ActorTestKit testKit;

  @TempDir
  Path dir;

  private CommitlaneDatabase open() {
    return Commitlane.get(testKit.system()).open(dir, settings(testKit.system(),
        Map.of("wal", "off", "commit-threads", "2", "write-groups.enabled", "off")));
  }

  /** put(key, value) logged to "orders" with the entry "key=value"; tagged with the key. */
  private static CompletableFuture<CommitResult> order(CommitlaneDatabase db, String key, String value) {
    Transaction t = db.begin().useLog("orders").tag(key);
    t.put(b(key), b(value));
    t.addLogEntry(b(key + "=" + value));
    return db.commit(t).toCompletableFuture();
  }

  private static void apply(Map<String, String> projection, LogRecord r) {
    String[] kv = StandardCharsets.UTF_8.decode(r.entries().get(0).duplicate()).toString().split("=", 2);
    projection.put(kv[0], kv[1]);
  }

  /**
   * Commit 2 is written to RocksDB but held before its log record finishes, so the committed
   * watermark stays below it while commit 3, after it in the log, finishes: the view holds 1, 2
   * and 3, the watermark says only 1. The feed must leave out 2 and 3 and bring 4, written after
   * the view.
   */
  @Test
  void theViewAndTheFeedTogetherGiveEveryCommitExactlyOnce() throws Exception {
    try (CommitlaneDatabase db = open()) {
      order(db, "order/1", "a").get(30, TimeUnit.SECONDS);
      CompletableFuture<CommitResult> second;
      Source<LogRecord, NotUsed> changes;
      Map<String, String> projection = new TreeMap<>();
      try (StageControl stages = StageControl.install(db.storage())) {
        Barrier held = stages.barrier(CommitStage.WRITTEN, StageControl.tagged("order/2"));
        second = order(db, "order/2", "b");
        held.awaitArrivals(1, Duration.ofSeconds(30));
        order(db, "order/3", "c").get(30, TimeUnit.SECONDS);
        try (FeedSnapshot start = FeedSnapshot.of(db, "orders")) {
          assertTrue(start.holds(start.feedStart() - 1) && start.holds(start.feedStart()),
              "commit 2 sits at the watermark and is in the view");
          try (Cursor c = start.view().scan(KeyRange.prefix(b("order/")))) {
            while (c.hasNext()) {
              KeyValue kv = c.next();
              projection.put(s(kv.key()), s(kv.value()));
            }
          }
          changes = start.changesAfter();
        }
        assertEquals(Map.of("order/1", "a", "order/2", "b", "order/3", "c"), projection);
        order(db, "order/4", "d").get(30, TimeUnit.SECONDS); // after the view, while 2 is still held
        held.release();
      }
      second.get(30, TimeUnit.SECONDS);
      order(db, "order/1", "e").get(30, TimeUnit.SECONDS);
      List<LogRecord> after = changes.take(2).runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(30, TimeUnit.SECONDS);
      after.forEach(r -> apply(projection, r));
      assertEquals(List.of("order/4=d", "order/1=e"), after.stream()
          .map(r -> StandardCharsets.UTF_8.decode(r.entries().get(0).duplicate()).toString()).toList(),
          "neither 2 nor 3 comes again, and nothing after the view is missing");
      Map<String, String> database = new TreeMap<>();
      db.storage().list(KeyRange.prefix(b("order/"))).forEach(kv -> database.put(s(kv.key()), s(kv.value())));
      assertEquals(database, projection);
    }
  }

  @Test
  void withNothingInFlightTheFeedStartsAtTheWatermark() throws Exception {
    try (CommitlaneDatabase db = open()) {
      order(db, "order/1", "a").get(30, TimeUnit.SECONDS);
      try (FeedSnapshot start = FeedSnapshot.of(db, "orders")) {
        assertTrue(start.holds(start.feedStart() - 1));
        assertFalse(start.holds(start.feedStart()), "nothing at or above the watermark is in the view");
        assertEquals("a", s(start.view().getUntracked(b("order/1"))));
      }
    }
  }
}
