package io.commitlane.replication.internal.apply;

import io.commitlane.replication.ChangesTrimmedException;
import io.commitlane.replication.ReplicaChangeFeed;
import io.commitlane.replication.ReplicaLogRecord;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.internal.entry.ReplicatedCommit;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transaction-log records on one replica's database, applied straight through the applier (no
 * Raft): their timestamps, trimming by retention and what a feed says about trimmed records.
 */
public class ReplicaLogRecordsTest {
  @TempDir Path dir;
  private Database db;
  private ReplicaApplier applier;
  private AppliedWaiters applied;

  @BeforeEach
  void open() {
    db = Database.open(dir.resolve("db"), DatabaseOptions.defaults());
    applier = new ReplicaApplier(db);
    applied = new AppliedWaiters(Runnable::run);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private void apply(long index, long proposedAt, String... logs) {
    List<ReplicatedCommit.LogAppend> appends = java.util.Arrays.stream(logs)
        .map(l -> new ReplicatedCommit.LogAppend(l, List.of(("at " + index).getBytes(UTF_8)))).toList();
    ReplicatedCommit c = new ReplicatedCommit(index - 1, null, proposedAt, List.of(), List.of(),
        List.of(new ReplicatedCommit.Write("default", ("k" + index).getBytes(UTF_8), "v".getBytes(UTF_8))), appends);
    assertEquals(ApplyOutcome.Kind.COMMITTED, applier.apply(1, index, c.encode()).kind());
    applied.advanced(index);
  }

  private ReplicaChangeFeed feed(String log, long after) {
    return new ReplicaChangeFeed(() -> db, applied, log, after);
  }

  @Test
  void timestampsRiseWithTheIndexWhateverTheProposersClocksSay() {
    apply(1, 5_000, "events");
    apply(2, 4_000, "events"); // a proposer whose clock is behind
    apply(3, 4_000, "events");
    apply(4, 9_000, "events");
    assertEquals(List.of(5_000L, 5_001L, 5_002L, 9_000L), feed("events", 0).poll(10).stream().map(ReplicaLogRecord::timestamp).toList());
  }

  @Test
  void theLogClockSurvivesAReopen() {
    apply(1, 5_000, "events");
    db.close();
    db = Database.open(dir.resolve("db"), DatabaseOptions.defaults());
    applier = new ReplicaApplier(db);
    apply(2, 1_000, "events");
    assertEquals(5_001L, feed("events", 1).poll(1).get(0).timestamp());
  }

  @Test
  void trimmingRemovesRecordsOlderThanTheRetentionBeforeTheNewestAndFeedsSayWhatIsGone() {
    long minute = 60_000;
    for (int i = 1; i <= 10; i++) {
      apply(i, i * minute, i % 2 == 0 ? "a" : "b");
    }
    assertEquals(5, applier.trimLogs(Duration.ofMinutes(4)), "records more than 4 minutes older than the newest (10 min): 1..5");

    ChangesTrimmedException gone = assertThrows(ChangesTrimmedException.class, () -> feed("a", 2).poll(10));
    assertEquals(5, gone.trimmedThrough());
    assertEquals(2, gone.afterIndex());
    assertEquals(List.of(6L, 8L, 10L), feed("a", 5).poll(10).stream().map(ReplicaLogRecord::index).toList());
    assertEquals(List.of(6L, 8L, 10L), feed("a", -1).poll(10).stream().map(ReplicaLogRecord::index).toList(),
        "a feed opened from the oldest retained record starts after the trimmed ones");
    assertEquals(0, applier.trimLogs(Duration.ZERO), "zero retention keeps every record");
  }

  @Test
  void aFeedPagesThroughOneLogAndSkipsTheOthers() {
    for (int i = 1; i <= 9; i++) {
      apply(i, 1_000 + i, i % 3 == 0 ? "a" : "b", "c");
    }
    ReplicaChangeFeed a = feed("a", 0);
    assertEquals(List.of(3L, 6L), a.poll(2).stream().map(ReplicaLogRecord::index).toList());
    assertEquals(List.of(9L), a.poll(2).stream().map(ReplicaLogRecord::index).toList());
    assertEquals(List.of(), a.poll(2));
    assertEquals(9, a.position());
    ReplicaChangeFeed c = feed("c", 4);
    assertEquals(List.of(5L, 6L, 7L, 8L, 9L), c.poll(100).stream().map(ReplicaLogRecord::index).toList(),
        "two logs in one commit: each has a record at its index");
  }

  @Test
  void whenMoreCompletesOnlyAfterAnIndexThePollCouldNotSee() {
    apply(1, 1_000, "a");
    ReplicaChangeFeed feed = feed("a", 0);
    assertEquals(1, feed.poll(10).size());
    CompletableFuture<Void> more = feed.whenMore().toCompletableFuture();
    assertFalse(more.isDone());
    apply(2, 2_000, "a");
    assertTrue(more.isDone());
    assertEquals(List.of(2L), feed.poll(10).stream().map(ReplicaLogRecord::index).toList());
    applied.close(new ReplicaUnavailableException("closed"));
    assertTrue(feed.whenMore().toCompletableFuture().isCompletedExceptionally());
  }

  @Test
  void aConflictedCommitAppendsNoRecord() {
    apply(1, 1_000, "a");
    ReplicatedCommit stale = new ReplicatedCommit(0, null, 2_000, List.of(new ReplicatedCommit.ReadKey("default", "k1".getBytes(UTF_8))),
        List.of(), List.of(), List.of(new ReplicatedCommit.LogAppend("a", List.of("lost".getBytes(UTF_8)))));
    assertEquals(ApplyOutcome.Kind.CONFLICTED, applier.apply(1, 2, stale.encode()).kind());
    assertEquals(List.of(1L), feed("a", 0).poll(10).stream().map(ReplicaLogRecord::index).toList());
  }

  @Test
  void expectationsAreCheckedAgainstWhatEarlierEntriesWroteAndTravelInTheirOwnFormat() {
    apply(1, 1_000); // k1 = "v"
    byte[] k1 = "k1".getBytes(UTF_8);
    ReplicatedCommit holds = new ReplicatedCommit(0, null, 2_000, List.of(), List.of(),
        List.of(new ReplicatedCommit.Write("default", k1, "w".getBytes(UTF_8))), List.of(),
        List.of(new ReplicatedCommit.Expect("default", k1, "v".getBytes(UTF_8)), new ReplicatedCommit.Expect("none", k1, null)));
    assertEquals(ReplicatedCommit.FORMAT_WITH_EXPECTATIONS, holds.encode()[0]);
    assertEquals(holds.expects().size(), ReplicatedCommit.decode(holds.encode()).expects().size());
    assertEquals(ApplyOutcome.Kind.COMMITTED, applier.apply(1, 2, holds.encode()).kind(), "snapshot 0 is stale, the value is not");

    ReplicatedCommit stale = new ReplicatedCommit(2, null, 3_000, List.of(), List.of(),
        List.of(new ReplicatedCommit.Write("default", k1, "x".getBytes(UTF_8))), List.of(),
        List.of(new ReplicatedCommit.Expect("default", k1, "v".getBytes(UTF_8))));
    ApplyOutcome failed = ApplyOutcome.decode(applier.apply(1, 3, stale.encode()).encode());
    assertEquals(ApplyOutcome.Kind.EXPECTATIONS, failed.kind());
    assertEquals("w", new String(failed.actual().get(0), UTF_8), "what the key held at index 3");
    assertEquals("w", new String(db.get(db.findStore("default").orElseThrow(), k1), UTF_8), "nothing written");

    ReplicatedCommit blind = new ReplicatedCommit(3, null, 4_000, List.of(), List.of(),
        List.of(new ReplicatedCommit.Write("default", k1, "y".getBytes(UTF_8))), List.of());
    assertEquals(ReplicatedCommit.FORMAT, blind.encode()[0], "a commit without expectations stays readable by older replicas");
  }
}
