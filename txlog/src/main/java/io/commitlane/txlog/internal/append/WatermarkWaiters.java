package io.commitlane.txlog.internal.append;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Futures waiting for the committed watermark to pass a position (live tails). Not thread-safe:
 * guarded by the log's state lock; futures are completed by the caller after it unlocks.
 */
final class WatermarkWaiters {
  private record Waiter(long position, CompletableFuture<Void> future) {}

  private final PriorityQueue<Waiter> queue =
      new PriorityQueue<>((a, b) -> Long.compare(a.position, b.position));

  boolean isEmpty() {
    return queue.isEmpty();
  }

  CompletableFuture<Void> add(long position) {
    CompletableFuture<Void> future = new CompletableFuture<>();
    queue.add(new Waiter(position, future));
    return future;
  }

  /** Removes and returns the futures whose position is below {@code watermark}. */
  List<CompletableFuture<Void>> takeBelow(long watermark) {
    List<CompletableFuture<Void>> ready = null;
    while (!queue.isEmpty() && queue.peek().position < watermark) {
      if (ready == null) {
        ready = new ArrayList<>();
      }
      ready.add(queue.poll().future);
    }
    return ready == null ? List.of() : ready;
  }

  List<CompletableFuture<Void>> takeAll() {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    while (!queue.isEmpty()) {
      all.add(queue.poll().future);
    }
    return all;
  }
}
