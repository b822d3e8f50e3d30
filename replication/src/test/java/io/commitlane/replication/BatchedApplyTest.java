package io.commitlane.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Store;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries of several commits ({@link CommitBatch}) applied straight through the applier (no
 * Raft): each commit validated in its slot against earlier entries and earlier slots, a
 * conflicted or refused one writing nothing while its neighbours commit, one applied position per
 * entry, and the same outcomes after a reopen replays nothing twice.
 */
class BatchedApplyTest {
  @TempDir Path dir;
  private Database db;
  private ReplicaApplier applier;

  @BeforeEach
  void open() {
    db = Database.open(dir.resolve("db"), DatabaseOptions.defaults());
    applier = new ReplicaApplier(db);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  /** A commit that read {@code read} (or nothing) at {@code snapshot} and writes {@code key = value}. */
  private static byte[] commit(long snapshot, String read, String key, String value, String requestId) {
    return new ReplicatedCommit(snapshot, requestId == null ? null : b(requestId), 0,
        read == null ? List.of() : List.of(new ReplicatedCommit.ReadKey("default", b(read))), List.of(),
        List.of(new ReplicatedCommit.Write("default", b(key), b(value))), List.of()).encode();
  }

  /** A blind commit of {@code key = value} that holds only if {@code key} holds {@code expected} (null: absent) at its place in the log. */
  private static byte[] expecting(String key, String expected, String value) {
    return new ReplicatedCommit(0, null, 0, List.of(), List.of(),
        List.of(new ReplicatedCommit.Write("default", b(key), b(value))), List.of(),
        List.of(new ReplicatedCommit.Expect("default", b(key), expected == null ? null : b(expected)))).encode();
  }

  private byte[] value(String key) {
    Store s = db.findStore("default").orElseThrow();
    return db.get(s, b(key));
  }

  @Test
  void aConflictInTheMiddleOfAnEntryFailsOnlyThatCommit() {
    assertEquals(ApplyOutcome.Kind.COMMITTED, applier.apply(1, 1, commit(0, null, "x", "old", null)).kind());
    // Slot 1 read x at snapshot 0 (before index 1 wrote it): conflicted. Slots 0 and 2 are valid.
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 2, CommitBatch.encode(List.of(
        commit(1, "x", "a", "1", null),
        commit(0, "x", "b", "2", null),
        commit(1, null, "c", "3", null))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.CONFLICTED, ApplyOutcome.Kind.COMMITTED),
        outcomes.stream().map(ApplyOutcome::kind).toList());
    assertEquals(List.of(0, 1, 2), outcomes.stream().map(ApplyOutcome::slot).toList());
    assertEquals(List.of(2L, 2L, 2L), outcomes.stream().map(ApplyOutcome::index).toList());
    assertArrayEquals(b("1"), value("a"));
    assertNull(value("b"));
    assertArrayEquals(b("3"), value("c"));
    assertEquals(2, applier.appliedIndex());
  }

  @Test
  void aCommitConflictsWithAnEarlierSlotOfItsOwnEntry() {
    // Both read y at snapshot 0; slot 0 writes it, so slot 1's read is stale within the same entry.
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(
        commit(0, "y", "y", "first", null),
        commit(0, "y", "y", "second", null))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.CONFLICTED), outcomes.stream().map(ApplyOutcome::kind).toList());
    assertArrayEquals(b("first"), value("y"));
  }

  @Test
  void aRangeReadConflictsWithAnEarlierSlotsWrite() {
    byte[] scanner = new ReplicatedCommit(0, null, 0, List.of(),
        List.of(new ReplicatedCommit.ReadRange("default", b("m"), b("n"))),
        List.of(new ReplicatedCommit.Write("default", b("summary"), b("s"))), List.of()).encode();
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(commit(0, null, "m1", "v", null), scanner)));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.CONFLICTED), outcomes.stream().map(ApplyOutcome::kind).toList());
    assertNull(value("summary"));
  }

  @Test
  void aRequestIdIsAnsweredWithItsFirstSlotInTheSameEntryAndLater() {
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(
        commit(0, null, "p", "1", null),
        commit(0, null, "counter", "1", "req-1"),
        commit(0, null, "counter", "2", "req-1"))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.DUPLICATE),
        outcomes.stream().map(ApplyOutcome::kind).toList());
    assertEquals(new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, 1, 1, ""), outcomes.get(2));
    assertArrayEquals(b("1"), value("counter"));
    // A resend in a later entry, alone: answered with the first commit's index and slot.
    assertEquals(new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, 1, 1, ""), applier.apply(1, 2, commit(1, null, "counter", "3", "req-1")));
    assertArrayEquals(b("1"), value("counter"));
  }

  @Test
  void aMalformedCommitIsRefusedAndItsNeighboursCommit() {
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(
        commit(0, null, "a", "1", null), new byte[] {9, 9, 9}, commit(0, null, "c", "3", null))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.REFUSED, ApplyOutcome.Kind.COMMITTED),
        outcomes.stream().map(ApplyOutcome::kind).toList());
  }

  @Test
  void anEntryReplayedAfterAReopenIsNotAppliedTwice() {
    byte[] entry = CommitBatch.encode(List.of(commit(0, null, "a", "1", null), commit(0, null, "b", "2", null)));
    applier.applyEntry(1, 1, entry);
    db.close();
    db = Database.open(dir.resolve("db"), DatabaseOptions.defaults());
    applier = new ReplicaApplier(db);
    assertEquals(1, applier.appliedIndex());
    List<ApplyOutcome> again = applier.applyEntry(1, 1, entry);
    assertEquals(List.of(ApplyOutcome.Kind.DUPLICATE, ApplyOutcome.Kind.DUPLICATE), again.stream().map(ApplyOutcome::kind).toList());
    // A later commit that read a at snapshot 1 (after the batch) is valid: the batch's version is its entry's index.
    assertEquals(ApplyOutcome.Kind.COMMITTED, applier.apply(1, 2, commit(1, "a", "a", "again", null)).kind());
  }

  @Test
  void aBatchedEntryWhoseLengthsDoNotFitIsRefusedWhole() {
    byte[] bad = {CommitBatch.FORMAT, 0, 0, 0, 2, 0, 0, 0, 50};
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, bad);
    assertEquals(1, outcomes.size());
    assertEquals(ApplyOutcome.Kind.REFUSED, outcomes.get(0).kind());
    assertEquals(1, applier.appliedIndex());
  }

  @Test
  void outcomesAndReceiptsKeepTheirSlots() {
    List<ApplyOutcome> sent = List.of(ApplyOutcome.committed(7, 0), new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, 7, 1, "default key k"),
        ApplyOutcome.committed(7, 2));
    assertEquals(sent, CommitBatch.decodeOutcomes(CommitBatch.encodeOutcomes(sent)));
    assertEquals(ApplyOutcome.committed(7), ApplyOutcome.decode(ApplyOutcome.committed(7).encode()));
  }

  @Test
  void expectationsSeeWhatEarlierSlotsOfTheSameEntryWrote() {
    // Three read-modify-writes of one counter queued behind each other share an entry: each
    // expects what the slot before it wrote. The last one expects a value the counter no longer
    // holds, and is told what it holds at its slot.
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(
        expecting("n", null, "1"),
        expecting("n", "1", "2"),
        expecting("n", "1", "3"))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.EXPECTATIONS),
        outcomes.stream().map(ApplyOutcome::kind).toList());
    ApplyOutcome failed = ApplyOutcome.decode(outcomes.get(2).encode());
    assertEquals(2, failed.slot(), "the outcome keeps its slot through its encoding");
    assertArrayEquals(b("2"), failed.actual().get(0), "what slot 1 wrote");
    assertArrayEquals(b("2"), value("n"));
  }

  @Test
  void aSingleCommitWithExpectationsIsNotReadAsABatch() {
    byte[] single = expecting("k", null, "v");
    assertEquals(false, CommitBatch.isBatch(single));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED), applier.applyEntry(1, 1, CommitBatch.encode(List.of(single))).stream()
        .map(ApplyOutcome::kind).toList());
    assertArrayEquals(b("v"), value("k"));
  }
}
