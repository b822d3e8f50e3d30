package io.commitlane.replication.internal.entry;

import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.internal.apply.ApplyOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * How a handle groups commits into entries: alone while nothing waits, together behind an entry
 * in flight, split at the entry size limit, each answered with its own slot's outcome. The sends
 * are futures the test completes, so every interleaving is forced.
 */
public class CommitBatcherTest {
  /** Entries sent, and the replies the test completes. */
  private final List<byte[]> entries = new ArrayList<>();
  private final List<CompletableFuture<byte[]>> replies = new ArrayList<>();

  private CompletionStage<byte[]> send(byte[] entry) {
    entries.add(entry);
    CompletableFuture<byte[]> reply = new CompletableFuture<>();
    replies.add(reply);
    return reply;
  }

  /** Answers entry {@code e} (sent at {@code index}) with a commit for every slot, or a conflict in {@code conflictSlot}. */
  private void answer(int e, long index, int conflictSlot) {
    byte[] entry = entries.get(e);
    int n = CommitBatch.decode(entry).size();
    List<ApplyOutcome> outcomes = new ArrayList<>();
    for (int slot = 0; slot < n; slot++) {
      outcomes.add(slot == conflictSlot ? new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, index, slot, "k") : ApplyOutcome.committed(index, slot));
    }
    replies.get(e).complete(n > 1 ? CommitBatch.encodeOutcomes(outcomes) : outcomes.get(0).encode());
  }

  private static byte[] commit(int size, int tag) {
    byte[] c = new byte[size];
    c[0] = ReplicatedCommit.FORMAT;
    c[size - 1] = (byte) tag;
    return c;
  }

  @Test
  void commitsSubmittedWhileAnEntryIsInFlightShareTheNextEntryAndGetTheirOwnSlots() throws Exception {
    CommitBatcher batcher = new CommitBatcher(this::send, 1, 1 << 20, 100);
    CompletionStage<ApplyOutcome> first = batcher.submit(commit(10, 0), Set.of());
    List<CompletionStage<ApplyOutcome>> queued = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      queued.add(batcher.submit(commit(10, i), Set.of()));
    }
    assertEquals(1, entries.size(), "the three wait behind the entry in flight");
    assertEquals(List.of(entries.get(0)), CommitBatch.decode(entries.get(0)));
    answer(0, 5, -1);
    assertEquals(ApplyOutcome.committed(5, 0), first.toCompletableFuture().get());
    assertEquals(2, entries.size());
    List<byte[]> batch = CommitBatch.decode(entries.get(1));
    assertEquals(List.of(1, 2, 3), batch.stream().map(c -> (int) c[c.length - 1]).toList(), "in submission order");
    answer(1, 6, 1);
    assertEquals(ApplyOutcome.committed(6, 0), queued.get(0).toCompletableFuture().get());
    assertEquals(new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, 6, 1, "k"), queued.get(1).toCompletableFuture().get());
    assertEquals(ApplyOutcome.committed(6, 2), queued.get(2).toCompletableFuture().get());
  }

  @Test
  void aBatchBiggerThanTheEntryLimitIsSplitInOrder() {
    // Entries of at most 100 bytes: 4 + 1 header bytes, 4 + 30 per commit, so two commits per entry.
    CommitBatcher batcher = new CommitBatcher(this::send, 1, 100, 100);
    batcher.submit(commit(30, 0), Set.of());
    for (int i = 1; i <= 5; i++) {
      batcher.submit(commit(30, i), Set.of());
    }
    answer(0, 1, -1);
    assertEquals(List.of(1, 2), CommitBatch.decode(entries.get(1)).stream().map(c -> (int) c[c.length - 1]).toList());
    assertTrue(entries.get(1).length <= 100);
    answer(1, 2, -1);
    assertEquals(List.of(3, 4), CommitBatch.decode(entries.get(2)).stream().map(c -> (int) c[c.length - 1]).toList());
    answer(2, 3, -1);
    assertEquals(List.of(5), CommitBatch.decode(entries.get(3)).stream().map(c -> (int) c[c.length - 1]).toList());
    assertEquals(List.of(2, 2, 1), CommitBatch.split(List.of(30, 30, 30, 30, 30), 100, 100));
    assertEquals(List.of(1, 1), CommitBatch.split(List.of(500, 30), 100, 100), "a commit over the limit goes alone");
  }

  @Test
  void commitsAppendingToOneTransactionLogGoInSeparateEntries() {
    CommitBatcher batcher = new CommitBatcher(this::send, 1, 1 << 20, 100);
    batcher.submit(commit(10, 0), Set.of());
    batcher.submit(commit(10, 1), Set.of("events"));
    batcher.submit(commit(10, 2), Set.of("audit"));
    batcher.submit(commit(10, 3), Set.of("events", "audit"));
    batcher.submit(commit(10, 4), Set.of());
    answer(0, 1, -1);
    assertEquals(List.of(1, 2), tags(1), "other logs share an entry");
    answer(1, 2, -1);
    assertEquals(List.of(3, 4), tags(2), "a log already in the entry starts the next");
  }

  private List<Integer> tags(int e) {
    return CommitBatch.decode(entries.get(e)).stream().map(c -> (int) c[c.length - 1]).toList();
  }

  @Test
  void twoEntriesInFlightKeepAppendsPipelined() {
    CommitBatcher batcher = new CommitBatcher(this::send, 2, 1 << 20, 100);
    batcher.submit(commit(10, 0), Set.of());
    batcher.submit(commit(10, 1), Set.of());
    batcher.submit(commit(10, 2), Set.of());
    batcher.submit(commit(10, 3), Set.of());
    assertEquals(2, entries.size(), "two alone in flight, two waiting");
    answer(1, 2, -1);
    assertEquals(3, entries.size());
    assertEquals(2, CommitBatch.decode(entries.get(2)).size());
  }

  @Test
  void aCommitAloneAnsweredAsADuplicateCompletes() throws Exception {
    // A single commit's outcome starts with its kind; a duplicate's first byte equals the batch format's.
    CommitBatcher batcher = new CommitBatcher(this::send, 1, 1 << 20, 100);
    CompletionStage<ApplyOutcome> resent = batcher.submit(commit(10, 0), Set.of());
    replies.get(0).complete(new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, 4, 2, "").encode());
    assertEquals(new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, 4, 2, ""), resent.toCompletableFuture().get());
  }

  @Test
  void aFailedSendFailsEveryCommitOfItsEntryAndNotTheNext() throws Exception {
    CommitBatcher batcher = new CommitBatcher(this::send, 1, 1 << 20, 100);
    batcher.submit(commit(10, 0), Set.of());
    CompletionStage<ApplyOutcome> a = batcher.submit(commit(10, 1), Set.of());
    CompletionStage<ApplyOutcome> b = batcher.submit(commit(10, 2), Set.of());
    answer(0, 1, -1);
    CompletionStage<ApplyOutcome> c = batcher.submit(commit(10, 3), Set.of());
    replies.get(1).completeExceptionally(new ReplicaUnavailableException("no leader"));
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> a.toCompletableFuture().get());
    assertInstanceOf(ReplicaUnavailableException.class, e.getCause());
    assertTrue(b.toCompletableFuture().isCompletedExceptionally());
    answer(2, 3, -1);
    assertEquals(ApplyOutcome.committed(3, 0), c.toCompletableFuture().get());
  }
}
