package io.commitlane.replication.internal.apply;

import io.commitlane.replication.InvalidReplicaRequestException;
import io.commitlane.replication.LogPositions;
import io.commitlane.replication.MalformedEntryException;
import io.commitlane.replication.PositionStamp;
import io.commitlane.replication.internal.entry.CommitBatch;
import io.commitlane.replication.internal.entry.ReplicatedCommit;
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
public class BatchedApplyTest {
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

  /** A commit putting {@code prefix + position} = {@code "v" + position}, with {@code n} positions (ordinals 0..n-1). */
  private static byte[] positioned(String prefix, int n) {
    List<ReplicatedCommit.PositionedPut> puts = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] key = java.nio.ByteBuffer.allocate(prefix.length() + 8).put(b(prefix)).array();
      byte[] value = new byte[9];
      value[0] = 'v';
      puts.add(new ReplicatedCommit.PositionedPut("default", key, value,
          List.of(new PositionStamp(false, prefix.length(), i), new PositionStamp(true, 1, i))));
    }
    return new ReplicatedCommit(0, null, 0, List.of(), List.of(), List.of(), List.of(), List.of(), puts).encode();
  }

  private List<Long> positionsUnder(String prefix) {
    Store s = db.findStore("default").orElseThrow();
    List<Long> out = new java.util.ArrayList<>();
    for (io.commitlane.storage.KeyValue kv : db.list(io.commitlane.storage.KeyRange.prefix(b(prefix)).in(s))) {
      long inKey = java.nio.ByteBuffer.wrap(kv.key(), prefix.length(), 8).getLong();
      assertEquals(inKey, java.nio.ByteBuffer.wrap(kv.value(), 1, 8).getLong(), "the value holds the key's position");
      out.add(inKey);
    }
    return out;
  }

  @Test
  void positionsFollowLogOrderAcrossSlotsAndEntries() {
    long p2 = LogPositions.first(2);
    long p3 = LogPositions.first(3);
    applier.apply(1, 1, commit(0, null, "x", "old", null));
    // Slot 1 conflicts: it uses no positions, and slot 2 takes the positions after slot 0's.
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 2, CommitBatch.encode(List.of(
        positioned("t", 2), commit(0, "x", "b", "2", null), positioned("t", 3))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.CONFLICTED, ApplyOutcome.Kind.COMMITTED),
        outcomes.stream().map(ApplyOutcome::kind).toList());
    assertEquals(ApplyOutcome.Kind.COMMITTED, applier.apply(1, 3, positioned("t", 1)).kind());
    assertEquals(List.of(p2, p2 + 1, p2 + 2, p2 + 3, p2 + 4, p3), positionsUnder("t"));
    assertEquals(3, LogPositions.index(p3));
    assertEquals(p3 + LogPositions.PER_ENTRY, LogPositions.after(3));
  }

  @Test
  void positionedCommitsRoundTripTheirFormatAndOlderFormatsStay() {
    byte[] encoded = positioned("t", 2);
    assertEquals(ReplicatedCommit.FORMAT_WITH_POSITIONS, encoded[0]);
    ReplicatedCommit decoded = ReplicatedCommit.decode(encoded);
    assertEquals(2, decoded.positioned().size());
    assertEquals(2, decoded.positions());
    assertEquals(ReplicatedCommit.FORMAT, commit(0, null, "k", "v", null)[0]);
    assertEquals(ReplicatedCommit.FORMAT_WITH_EXPECTATIONS, expecting("k", null, "v")[0]);
  }

  @Test
  void aStampOutsideItsKeyIsAMalformedEntryRefusedEverywhereTheSame() {
    byte[] good = positioned("t", 1);
    // The key's stamp offset is written after: store (2 + 7), key (4 + 9), value (4 + 9), count (4), inValue (1).
    byte[] bad = good.clone();
    int at = indexOfStamps(bad);
    java.nio.ByteBuffer.wrap(bad, at + 1, 4).putInt(5); // offset 5 of a 9-byte key: 8 bytes do not fit
    org.junit.jupiter.api.Assertions.assertThrows(MalformedEntryException.class, () -> ReplicatedCommit.decode(bad));
    byte[] badOrdinal = good.clone();
    java.nio.ByteBuffer.wrap(badOrdinal, at + 5, 4).putInt(LogPositions.PER_ENTRY);
    org.junit.jupiter.api.Assertions.assertThrows(MalformedEntryException.class, () -> ReplicatedCommit.decode(badOrdinal));
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(good, bad, commit(0, null, "k", "v", null))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.REFUSED, ApplyOutcome.Kind.COMMITTED),
        outcomes.stream().map(ApplyOutcome::kind).toList());
    assertEquals(List.of(LogPositions.first(1)), positionsUnder("t"));
    org.junit.jupiter.api.Assertions.assertThrows(InvalidReplicaRequestException.class, () -> new PositionStamp(false, 0, -1));
  }

  /** Where the first stamp of a one-put positioned commit starts (its inValue byte). */
  private static int indexOfStamps(byte[] encoded) {
    // The encoded stamps are the last 2 * 9 bytes.
    return encoded.length - 18;
  }

  @Test
  void anEntryOutOfPositionsRefusesTheCommitThatDoesNotFit() {
    // Ordinal PER_ENTRY - 1 takes the whole entry: a second positioned commit in the same entry does not fit.
    byte[] key = java.nio.ByteBuffer.allocate(9).put(b("t")).array();
    byte[] whole = new ReplicatedCommit(0, null, 0, List.of(), List.of(), List.of(), List.of(), List.of(),
        List.of(new ReplicatedCommit.PositionedPut("default", key, new byte[8],
            List.of(new PositionStamp(false, 1, LogPositions.PER_ENTRY - 1))))).encode();
    List<ApplyOutcome> outcomes = applier.applyEntry(1, 1, CommitBatch.encode(List.of(whole, positioned("u", 1))));
    assertEquals(List.of(ApplyOutcome.Kind.COMMITTED, ApplyOutcome.Kind.REFUSED), outcomes.stream().map(ApplyOutcome::kind).toList());
    assertEquals(List.of(), positionsUnder("u"));
  }
}
