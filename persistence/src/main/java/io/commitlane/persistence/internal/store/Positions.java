package io.commitlane.persistence.internal.store;

import io.commitlane.annotation.InternalApi;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

/**
 * INTERNAL API. Commit positions: the offsets of the tag and change indexes and of new persistence ids.
 *
 * <p><b>The invariant readers rely on:</b> every position below {@link #watermark()} is settled: its commit was
 * acknowledged at the database's durability (so it is readable and survives a crash) or it failed. A reader that
 * reads the watermark first and then the index, and emits only entries below the watermark, can resume from any
 * position it emitted and never miss an entry committed later: nothing at or below that position can still appear.
 * Positions are claimed in increasing order before their commits start, commits finish out of order, and the
 * watermark is the start of the oldest unsettled claim (the same contiguous-prefix rule as the transaction log's
 * committed watermark).
 *
 * <p><b>Never handed out twice.</b> Positions come from blocks reserved in the store ({@link Keys#reserved()}) by a
 * commit that is acknowledged before any position of its block is claimed. After a crash the next block starts
 * above everything reserved, so a position a reader saved is never reused, whatever was lost in flight. The next
 * block is reserved in the background when half of the current one is used: a claim waits only if a whole half
 * block is claimed while a reservation commits.
 */
@InternalApi
public final class Positions {
  /** Positions per reservation. */
  static final long BLOCK = 1L << 20;

  private final LongFunction<CompletionStage<?>> reserve;
  /** Guarded by this. */
  private long next;
  private long limit;
  private boolean reserving;
  private Throwable reservationFailure;
  private final ArrayDeque<Claim> waiting = new ArrayDeque<>();
  /** Claims not settled yet: start to end. */
  private final TreeMap<Long, Long> unsettled = new TreeMap<>();
  private volatile long watermark;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  /** Guarded by this: stages completed once the watermark passes their position. */
  private final TreeMap<Long, List<CompletableFuture<Void>>> settledWaiters = new TreeMap<>();

  private record Claim(int count, CompletableFuture<Long> start) {}

  /** Whether positions are assigned elsewhere (a replicated log): no claims, the watermark moves by {@link #advanceTo}. */
  private final boolean assignedElsewhere;

  /**
   * Positions a replicated log assigns as it applies commits: nothing is claimed here, and the watermark is what
   * {@link #advanceTo} says (the first position after the entries applied, all of them settled), starting at {@code
   * watermark}.
   */
  public static Positions assignedByLog(long watermark) {
    return new Positions(watermark, null, true);
  }

  private Positions(long reserved, LongFunction<CompletionStage<?>> reserve, boolean assignedElsewhere) {
    this.next = reserved;
    this.limit = reserved;
    this.watermark = reserved;
    this.reserve = reserve;
    this.assignedElsewhere = assignedElsewhere;
  }

  /**
   * Move the watermark of log-assigned positions to {@code watermark} (no effect if it is not higher), waking what
   * waits for it and running the listeners on this thread.
   */
  public void advanceTo(long watermark) {
    if (!assignedElsewhere) {
      throw new IllegalStateException("these positions are claimed here; their watermark moves as claims settle");
    }
    List<CompletableFuture<Void>> settled = new ArrayList<>();
    synchronized (this) {
      if (watermark <= this.watermark) {
        return;
      }
      this.watermark = watermark;
      this.next = watermark;
      java.util.Map<Long, List<CompletableFuture<Void>>> passed = settledWaiters.headMap(watermark, false);
      passed.values().forEach(settled::addAll);
      passed.clear();
    }
    settled.forEach(f -> f.complete(null));
    for (Runnable listener : listeners) {
      listener.run();
    }
  }

  /**
   * @param reserved the reservation stored at open (0 for a new store): every position below it may have been used
   * @param reserve commits a new reservation (the store's {@code R} key); its stage completes once it is acknowledged
   */
  public Positions(long reserved, LongFunction<CompletionStage<?>> reserve) {
    this(reserved, reserve, false);
  }

  /** Every position below this is settled (see the class comment). */
  public long watermark() {
    return watermark;
  }

  /** Run {@code listener} after every advance of the watermark, on the thread that advanced it: hand over only. */
  public Runnable subscribe(Runnable listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Claim {@code count} consecutive positions; the stage gives the first. Settle them with {@link #settle}. */
  public CompletionStage<Long> claim(int count) {
    if (assignedElsewhere) {
      throw new IllegalStateException("positions are assigned by the replicated log, not claimed: put position references"
          + " in the write (StoreWrite.position())");
    }
    if (count < 1 || count > BLOCK / 2) {
      throw new IllegalArgumentException("claim 1.." + BLOCK / 2 + " positions, not " + count);
    }
    CompletableFuture<Long> result;
    boolean startReservation;
    synchronized (this) {
      if (waiting.isEmpty() && next + count <= limit) {
        long start = take(count);
        result = CompletableFuture.completedFuture(start);
      } else {
        result = new CompletableFuture<>();
        waiting.add(new Claim(count, result));
      }
      startReservation = !reserving && limit - next < BLOCK / 2;
      reserving |= startReservation;
    }
    if (startReservation) {
      startReservation();
    }
    return result;
  }

  /**
   * Claim {@code count} positions, run {@code commit} with the first, and settle them when its stage completes (or
   * when it throws): a claim is never left unsettled, which would hold the watermark, and every query, for good.
   */
  public <T> CompletionStage<T> during(int count, java.util.function.LongFunction<CompletionStage<T>> commit) {
    return claim(count).thenCompose(start -> {
      CompletionStage<T> done;
      try {
        done = commit.apply(start);
      } catch (RuntimeException e) {
        done = CompletableFuture.failedFuture(e);
      }
      return done.whenComplete((v, e) -> settle(start));
    });
  }

  /** Completes once {@code position} is settled (the watermark is above it): at once if it is. */
  public CompletionStage<Void> settledThrough(long position) {
    synchronized (this) {
      if (watermark > position) {
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<Void> f = new CompletableFuture<>();
      settledWaiters.computeIfAbsent(position, p -> new ArrayList<>()).add(f);
      return f;
    }
  }

  /** Settle the claim starting at {@code start}: its commit was acknowledged or failed. */
  public void settle(long start) {
    boolean advanced;
    List<CompletableFuture<Void>> settled = new ArrayList<>();
    synchronized (this) {
      unsettled.remove(start);
      long w = unsettled.isEmpty() ? next : unsettled.firstKey();
      advanced = w > watermark;
      if (advanced) {
        watermark = w;
        java.util.Map<Long, List<CompletableFuture<Void>>> passed = settledWaiters.headMap(w, false);
        passed.values().forEach(settled::addAll);
        passed.clear();
      }
    }
    settled.forEach(f -> f.complete(null));
    if (advanced) {
      for (Runnable listener : listeners) {
        listener.run();
      }
    }
  }

  /** Guarded by this. */
  private long take(int count) {
    long start = next;
    next += count;
    unsettled.put(start, next);
    return start;
  }

  private void startReservation() {
    long target;
    synchronized (this) {
      target = Math.max(limit, next) + BLOCK;
    }
    CompletionStage<?> done;
    try {
      done = reserve.apply(target);
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    done.whenComplete((ok, failure) -> reserved(target, failure));
  }

  private void reserved(long target, Throwable failure) {
    List<Runnable> completions = new ArrayList<>();
    boolean again;
    synchronized (this) {
      reserving = false;
      if (failure == null) {
        limit = Math.max(limit, target);
        reservationFailure = null;
        while (!waiting.isEmpty() && next + waiting.peek().count() <= limit) {
          Claim c = waiting.poll();
          long start = take(c.count());
          completions.add(() -> c.start().complete(start));
        }
      } else {
        reservationFailure = failure;
        while (!waiting.isEmpty()) {
          Claim c = waiting.poll();
          completions.add(() -> c.start().completeExceptionally(failure));
        }
      }
      again = failure == null && (!waiting.isEmpty() || limit - next < BLOCK / 2);
      reserving = again;
    }
    completions.forEach(Runnable::run);
    if (again) {
      startReservation();
    }
  }

  /** The last reservation's failure, or null. */
  synchronized Throwable reservationFailure() {
    return reservationFailure;
  }
}
