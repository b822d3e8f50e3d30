package io.commitlane.persistence.replicated.internal;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.internal.store.ConditionFailedException;
import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.Positions;
import io.commitlane.persistence.internal.store.StoreWrite;
import io.commitlane.persistence.internal.query.WriteSignals;
import io.commitlane.replication.LogPositions;
import io.commitlane.replication.PositionStamp;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaExpectationException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;

/**
 * INTERNAL API. {@link PluginStore} on a replicated database that this node holds a replica of.
 *
 * <ul>
 *   <li><b>Writes</b> go through Raft: one replicated transaction per write, its expectations ({@code H} of a
 *       persistence id, {@code D} of a durable object) checked by every replica at the commit's place in the log, so a
 *       second writer of an id on another node is refused in log order, never interleaved. A write completes when the
 *       leader answers (a majority holds it); this node's reads after it wait until its replica applied it, so what a
 *       plugin wrote it reads back here. (Waiting in the write instead would cost a follower's write up to a heartbeat
 *       on a quiet group, which is when a follower learns that the leader committed; most writes are not read back.)
 *   <li><b>Positions</b> are assigned by the log ({@link LogPositions}): the write's position references become
 *       positioned puts that every replica fills in identically as it applies the commit. Everything a replica applied
 *       is committed on a majority, so the watermark is the first position after the applied index, and it moves (and
 *       live queries wake, by tag, and by id when the id's {@code H} changed) as the replica applies entries, whichever
 *       node wrote them.
 *   <li><b>Reads</b> are of this node's replica; {@link #readBarrier()} first waits until it applied everything the
 *       leader had committed. Recovery reads and current queries take one before they read (they are linearizable: a
 *       current query's bound includes every write acknowledged before it started, on any node); live queries do not
 *       (they follow the replica, and emit such a write once it applied it).
 * </ul>
 */
@InternalApi
public final class ReplicatedPluginStore implements PluginStore {
  /** The named store the plugins keep their data in, on every replica. */
  public static final String STORE = "pekko-persistence";

  private final ReplicatedDatabase db;
  private final Executor executor;
  private final long maxWriteBytes;
  private final AutoCloseable owned;
  private final Positions positions;
  private final WriteSignals signals = new WriteSignals();
  private final Runnable stopListening;
  /** The last applied index published to the positions and signals. */
  private final AtomicLong applied = new AtomicLong();
  private final AtomicBoolean publishing = new AtomicBoolean();
  /** Touched only by the publication running (one at a time): the {@code H} value last seen of each followed id. */
  private final java.util.Map<String, byte[]> followed = new java.util.HashMap<>();
  /** The highest index of a write this store acknowledged: its reads wait until the replica applied it. */
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong inFlight = new AtomicLong();
  /** Guards the two fields below. */
  private final Object barriers = new Object();
  private boolean barrierInFlight;
  /** The requests that wait for the barrier after the one in flight; null when none does. */
  private CompletableFuture<Void> nextBarrier;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private volatile boolean closing;

  /**
   * @param db a handle on a replica of this node
   * @param owned closed after the last write finished (the node that hosts the replica), or null
   */
  public ReplicatedPluginStore(ReplicatedDatabase db, Executor executor, long maxWriteBytes, AutoCloseable owned) {
    if (!db.holdsReplica()) {
      throw new IllegalArgumentException("the persistence plugins read a replica of this node; a client handle holds none");
    }
    this.db = db;
    this.executor = executor;
    this.maxWriteBytes = maxWriteBytes;
    this.owned = owned;
    long start = db.appliedIndex();
    this.applied.set(start);
    this.positions = Positions.assignedByLog(LogPositions.after(start));
    this.stopListening = db.onApplied(this::appliedOnReplica);
    appliedOnReplica(db.appliedIndex()); // what it applied before the listener was there
  }

  /** On the replica's apply thread: hand over only. One publication runs at a time and takes the newest index. */
  private void appliedOnReplica(long index) {
    applied.accumulateAndGet(index, Math::max);
    if (publishing.compareAndSet(false, true)) {
      executor.execute(this::publish);
    }
  }

  private void publish() {
    long published = -1;
    while (true) {
      long now = applied.get();
      if (now != published) {
        published = now;
        positions.advanceTo(LogPositions.after(now));
        wakeWrittenIds();
      }
      publishing.set(false);
      if (applied.get() == published || !publishing.compareAndSet(false, true)) {
        return;
      }
    }
  }

  /**
   * Wake the live queries of the ids whose {@code H} key changed since the last publication: the entries applied may
   * hold writes of any id from any node, and every write or delete of an id changes its {@code H}. One batched local
   * read of the followed ids' {@code H} per publication, instead of every query reading its events again.
   */
  private void wakeWrittenIds() {
    java.util.Set<String> ids = signals.listened();
    followed.keySet().retainAll(ids);
    if (ids.isEmpty()) {
      return;
    }
    List<String> order = new ArrayList<>(ids);
    List<byte[]> now = new ArrayList<>(order.size());
    ReplicatedTransaction t = db.begin();
    try {
      for (String id : order) {
        now.add(t.get(STORE, Keys.highest(Keys.utf8("persistence id", id))));
      }
    } catch (RuntimeException e) {
      order.forEach(signals::written); // cannot tell which changed: wake them all, they read again
      return;
    } finally {
      t.abort();
    }
    for (int i = 0; i < order.size(); i++) {
      String id = order.get(i);
      if (!followed.containsKey(id) || !java.util.Arrays.equals(followed.get(id), now.get(i))) {
        followed.put(id, now.get(i));
        signals.written(id);
      }
    }
  }

  /** Before a read (on the plugin executor, where reads block): wait until the replica applied this store's writes. */
  private void readOwnWrites() {
    long need = written.get();
    if (db.appliedIndex() < need) {
      join(db.whenApplied(need));
      catchUp();
    }
  }

  /**
   * Publish what the replica applied now, on this thread: the watermark a query reads next is at least what this
   * read (or barrier) waited for, not what the publishing task has reached.
   */
  private void catchUp() {
    appliedOnReplica(db.appliedIndex());
    positions.advanceTo(LogPositions.after(applied.get()));
  }

  @Override
  public byte[] get(byte[] key) {
    readOwnWrites();
    return join(db.get(STORE, key, ReadConsistency.LOCAL));
  }

  @Override
  public List<byte[]> multiGet(List<byte[]> keys) {
    readOwnWrites();
    ReplicatedTransaction t = db.begin();
    try {
      List<byte[]> out = new ArrayList<>(keys.size());
      for (byte[] k : keys) {
        out.add(t.get(STORE, k));
      }
      return out;
    } finally {
      t.abort();
    }
  }

  @Override
  public List<KeyValue> scan(byte[] from, byte[] to, boolean reverse, int limit) {
    KeyRange range = (to == null ? KeyRange.all().from(from) : KeyRange.between(from, to)).limit(limit);
    readOwnWrites();
    ReplicatedTransaction t = db.begin();
    try {
      return t.list(STORE, reverse ? range.reverse() : range);
    } finally {
      t.abort();
    }
  }

  @Override
  public CompletionStage<Void> write(StoreWrite write) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    if (closing) {
      result.completeExceptionally(new DatabaseClosedException(java.nio.file.Path.of(db.name())));
      return result;
    }
    inFlight.incrementAndGet();
    result.whenComplete((v, e) -> {
      if (inFlight.decrementAndGet() == 0 && closing) {
        drained.complete(null);
      }
    });
    ReplicatedTransaction t = db.begin();
    CompletionStage<?> committed;
    try {
      for (StoreWrite.Expectation e : write.expectations()) {
        t.expect(STORE, e.key(), e.value());
      }
      for (StoreWrite.Change c : write.changes()) {
        if (c.value() == null) {
          t.remove(STORE, c.key());
        } else if (c.stamps().isEmpty()) {
          t.put(STORE, c.key(), c.value());
        } else {
          List<PositionStamp> stamps = new ArrayList<>(c.stamps().size());
          c.stamps().forEach(s -> stamps.add(new PositionStamp(s.inValue(), s.offset(), s.ordinal())));
          t.putPositioned(STORE, c.key(), c.value(), stamps);
        }
      }
      committed = t.commit().thenApply(receipt -> written.accumulateAndGet(receipt.index(), Math::max));
    } catch (RuntimeException e) {
      t.abort();
      committed = CompletableFuture.failedFuture(e);
    }
    committed.whenCompleteAsync((v, failure) -> {
      Throwable cause = unwrap(failure);
      if (cause == null) {
        result.complete(null);
      } else if (cause instanceof ReplicaExpectationException x) {
        expectationFailed(write, x, result);
      } else {
        result.completeExceptionally(cause);
      }
    }, executor);
    return result;
  }

  /**
   * An expectation did not hold in log order: fail with the first one that did not, once this replica applied the
   * entry that decided it, so the caller's next read of the key sees what was there.
   */
  private void expectationFailed(StoreWrite write, ReplicaExpectationException x, CompletableFuture<Void> result) {
    List<byte[]> actual = x.actual();
    int failed = 0;
    for (int i = 0; i < actual.size() && i < write.expectations().size(); i++) {
      if (!java.util.Arrays.equals(actual.get(i), write.expectations().get(i).value())) {
        failed = i;
        break;
      }
    }
    byte[] key = write.expectations().get(failed).key();
    byte[] held = actual.get(failed);
    db.whenApplied(x.index()).whenCompleteAsync((v, e) -> result.completeExceptionally(new ConditionFailedException(key, held)),
        executor);
  }

  /**
   * Barriers share round trips, like a group commit: a request that comes while one barrier is in flight cannot use it
   * (the leader may have answered it before the request came), so it waits for the next, which starts when the one in
   * flight completes and serves every request that came meanwhile. A rebalance that recovers many entities at once
   * costs two barriers, not one per entity.
   */
  @Override
  public CompletionStage<Void> readBarrier() {
    synchronized (barriers) {
      if (barrierInFlight) {
        if (nextBarrier == null) {
          nextBarrier = new CompletableFuture<>();
        }
        return nextBarrier;
      }
      barrierInFlight = true;
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    startBarrier(mine);
    return mine;
  }

  private void startBarrier(CompletableFuture<Void> waiters) {
    CompletionStage<Long> sync;
    try {
      sync = db.sync();
    } catch (RuntimeException e) {
      sync = CompletableFuture.failedFuture(e);
    }
    sync.whenCompleteAsync((index, e) -> {
      CompletableFuture<Void> next;
      synchronized (barriers) {
        next = nextBarrier;
        nextBarrier = null;
        barrierInFlight = next != null;
      }
      if (next != null) {
        startBarrier(next);
      }
      if (e == null) {
        catchUp();
        waiters.complete(null);
      } else {
        waiters.completeExceptionally(unwrap(e));
      }
    }, executor);
  }

  /** The replicated database whose replica this store reads. */
  public ReplicatedDatabase database() {
    return db;
  }

  @Override
  public Positions positions() {
    return positions;
  }

  @Override
  public WriteSignals signals() {
    return signals;
  }

  @Override
  public Executor executor() {
    return executor;
  }

  @Override
  public long maxWriteBytes() {
    return maxWriteBytes;
  }

  @Override
  public String describe() {
    return "replicated database '" + db.name() + "'";
  }

  @Override
  public CompletionStage<Done> close() {
    closing = true;
    if (inFlight.get() == 0) {
      drained.complete(null);
    }
    return drained.thenApplyAsync(v -> {
      stopListening.run();
      if (owned != null) {
        try {
          owned.close();
        } catch (Exception e) {
          throw new IllegalStateException("closing the replica of '" + db.name() + "' failed: " + e, e);
        }
      }
      return Done.getInstance();
    }, executor);
  }

  private static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      throw cause instanceof RuntimeException r ? r : e;
    }
  }

}
