package io.commitlane.replication.internal.apply;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Stages that wait for a replica to apply past an index (a change feed waiting for its next
 * record). The apply thread only reads a volatile when nobody waits; stages complete on the
 * node's completion threads, never on Ratis's apply thread.
 */
public final class AppliedWaiters {
  private record Waiter(long index, CompletableFuture<Void> stage) {}

  private final Executor completions;
  private final PriorityQueue<Waiter> waiting = new PriorityQueue<>((a, b) -> Long.compare(a.index(), b.index()));
  private volatile long applied;
  /** The smallest index waited on, or Long.MAX_VALUE: the apply thread's fast check. */
  private volatile long lowest = Long.MAX_VALUE;
  private RuntimeException closedWith;
  private final java.util.List<java.util.function.LongConsumer> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  public AppliedWaiters(Executor completions) {
    this.completions = completions;
  }

  /** The last index reported applied. */
  public long applied() {
    return applied;
  }

  /** Completes once an index greater than {@code index} is applied (at once if it is already). */
  public CompletableFuture<Void> whenAppliedBeyond(long index) {
    CompletableFuture<Void> stage = new CompletableFuture<>();
    synchronized (this) {
      if (closedWith != null) {
        stage.completeExceptionally(closedWith);
        return stage;
      }
      waiting.add(new Waiter(index, stage));
      lowest = waiting.peek().index();
    }
    // Written lowest, then read applied; advanced() writes applied, then reads lowest: one of the
    // two sees the other, so no stage is left waiting for an index already applied.
    long now = applied;
    if (now > index) {
      release(now);
    }
    return stage;
  }

  /**
   * Called on the apply thread after each entry (and after the replica opened) with its index;
   * a lower index (an entry replayed at restart) changes nothing.
   */
  void advanced(long index) {
    if (index <= applied) {
      return;
    }
    applied = index;
    if (index > lowest) {
      release(index);
    }
    for (java.util.function.LongConsumer l : listeners) {
      l.accept(index);
    }
  }

  /** Runs {@code listener} with the index after every advance, on the apply thread; returns its removal. */
  public Runnable listen(java.util.function.LongConsumer listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  private void release(long index) {
    synchronized (this) {
      while (!waiting.isEmpty() && waiting.peek().index() < index) {
        CompletableFuture<Void> stage = waiting.poll().stage();
        completions.execute(() -> stage.complete(null));
      }
      lowest = waiting.isEmpty() ? Long.MAX_VALUE : waiting.peek().index();
    }
  }

  /** Fails every waiting stage, and every later one, with {@code reason}. */
  void close(RuntimeException reason) {
    synchronized (this) {
      closedWith = reason;
      while (!waiting.isEmpty()) {
        CompletableFuture<Void> stage = waiting.poll().stage();
        completions.execute(() -> stage.completeExceptionally(reason));
      }
      lowest = Long.MAX_VALUE;
    }
  }
}
