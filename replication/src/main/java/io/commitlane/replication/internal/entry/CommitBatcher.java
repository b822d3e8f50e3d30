package io.commitlane.replication.internal.entry;

import io.commitlane.replication.internal.apply.ApplyOutcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Groups the commits of one handle into Raft entries: a commit submitted while fewer than {@code
 * maxInFlight} entries of this handle are in flight (by default one) goes out at once, alone in
 * its entry; commits submitted while that many are in flight wait, and go out together, in
 * submission order, as soon as one entry completes ({@link CommitBatch}, at most {@code maxEntryBytes} and {@code
 * maxCommits} per entry). One Raft round, one log append and fsync per replica, and one RocksDB
 * write per replica then serve the whole group.
 *
 * <p>Nothing is answered before the entry is committed (a majority holds it durably) and applied
 * on the leader; each commit gets its own outcome, from its own validation in its slot.
 */
public final class CommitBatcher {
  /**
   * Entries of one handle in flight at once. One: every commit submitted while the handle's entry
   * is in flight waits for the next. Measured at 8 clients x 8 in flight on three nodes (one
   * handle per node, so three entries in flight in the group): 1.54k commits/s with one, 1.02k
   * with two, 401/s with four; more entries in flight means smaller ones and more Raft rounds,
   * each paying the hops between threads that dominate on two cores.
   */
  static final int MAX_IN_FLIGHT = 1;
  /** Well under Ratis's message and log-appender limits, so a batch never makes an entry too large to replicate. */
  static final long MAX_ENTRY_BYTES = 1 << 20;
  static final int MAX_COMMITS = 512;

  /** Sends one entry's bytes and completes with the reply's bytes (a single outcome, or {@link CommitBatch#encodeOutcomes}). */
  private final Function<byte[], CompletionStage<byte[]>> send;
  private final int maxInFlight;
  private final long maxEntryBytes;
  private final int maxCommits;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int inFlight;

  private record Pending(byte[] commit, Set<String> logs, CompletableFuture<ApplyOutcome> outcome) {}

  public CommitBatcher(Function<byte[], CompletionStage<byte[]>> send) {
    this(send, MAX_IN_FLIGHT, MAX_ENTRY_BYTES, MAX_COMMITS);
  }

  public CommitBatcher(Function<byte[], CompletionStage<byte[]>> send, int maxInFlight, long maxEntryBytes, int maxCommits) {
    this.send = send;
    this.maxInFlight = maxInFlight;
    this.maxEntryBytes = maxEntryBytes;
    this.maxCommits = maxCommits;
  }

  /**
   * Submits an encoded commit that appends to the transaction logs {@code logs}: it shares no
   * entry with another commit appending to one of them (a log holds one record per index). The
   * stage completes with its outcome, or fails as the entry's send failed.
   */
  public CompletionStage<ApplyOutcome> submit(byte[] commit, Set<String> logs) {
    Pending p = new Pending(commit, logs, new CompletableFuture<>());
    List<Pending> ready;
    synchronized (this) {
      queue.add(p);
      ready = next();
    }
    dispatch(ready);
    return p.outcome();
  }

  /** The next entry to send, taken from the queue, when one may go now; else null. Holds the lock. */
  private List<Pending> next() {
    if (queue.isEmpty() || inFlight >= maxInFlight) {
      return null;
    }
    List<Pending> entry = new ArrayList<>();
    Set<String> logs = new HashSet<>();
    long bytes = 0;
    while (!queue.isEmpty()) {
      Pending head = queue.peek();
      boolean fits = entry.isEmpty()
          || (entry.size() < maxCommits && CommitBatch.encodedSize(entry.size() + 1, bytes + head.commit().length) <= maxEntryBytes
              && head.logs().stream().noneMatch(logs::contains));
      if (!fits) {
        break;
      }
      entry.add(queue.poll());
      logs.addAll(head.logs());
      bytes += head.commit().length;
    }
    inFlight++;
    return entry;
  }

  private void dispatch(List<Pending> entry) {
    while (entry != null) {
      List<Pending> sent = entry;
      List<byte[]> commits = new ArrayList<>(sent.size());
      for (Pending p : sent) {
        commits.add(p.commit());
      }
      CompletionStage<byte[]> reply;
      try {
        reply = send.apply(CommitBatch.encode(commits));
      } catch (RuntimeException e) {
        reply = CompletableFuture.failedFuture(e);
      }
      reply.whenComplete((bytes, error) -> {
        List<Pending> following;
        synchronized (this) {
          inFlight--;
          following = next();
        }
        // The next entry goes out before this one's callers run: their stages may be slow.
        dispatch(following);
        answer(sent, bytes, error);
      });
      // Dispatching more in this loop only while the lock allowed a further entry (more in flight).
      synchronized (this) {
        entry = next();
      }
    }
  }

  private static void answer(List<Pending> sent, byte[] reply, Throwable error) {
    if (error != null) {
      for (Pending p : sent) {
        p.outcome().completeExceptionally(error);
      }
      return;
    }
    List<ApplyOutcome> outcomes;
    try {
      // The reply's form follows the entry's: a batch's outcomes, or one commit's outcome.
      outcomes = sent.size() > 1 ? CommitBatch.decodeOutcomes(reply) : List.of(ApplyOutcome.decode(reply));
    } catch (RuntimeException e) {
      for (Pending p : sent) {
        p.outcome().completeExceptionally(e);
      }
      return;
    }
    for (int i = 0; i < sent.size(); i++) {
      // A batch refused whole (it did not decode) has one outcome for all its commits.
      sent.get(i).outcome().complete(outcomes.size() == sent.size() ? outcomes.get(i) : outcomes.get(0));
    }
  }
}
