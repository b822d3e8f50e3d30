package io.commitlane.persistence.internal.store;

import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.query.WriteSignals;
import io.commitlane.actors.AdmissionTicket;
import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.internal.store.StoreWrite.Change;
import io.commitlane.persistence.internal.store.StoreWrite.Expectation;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;

/**
 * INTERNAL API. {@link PluginStore} on a local database: one named store, writes through the database's commit
 * executors (never the caller's thread), every write appended to the plugins' transaction log when one is set
 * (that is what keeps it across a crash with RocksDB's WAL off), expectations checked by tracked reads that the
 * commit validates: a concurrent change of an expected key is a conflict, and the write is tried again, where the
 * expectation then decides. A write that finds the database's commit queue full waits in the database's line for a
 * place (first come, first served, nothing polls) and is then built again and committed into that place: more
 * entities writing at once than the queue holds slow down, they do not fail (which would open Pekko's circuit
 * breaker and stop every entity of the journal).
 */
@InternalApi
public final class LocalPluginStore implements PluginStore {
  /** The named store the plugins keep their data in. */
  public static final String STORE = "pekko-persistence";
  /** Attempts of a write whose tracked reads conflicted with a concurrent commit. */
  private static final int ATTEMPTS = 8;

  private final CommitlaneDatabase db;
  private final Store store;
  private final String log;
  private final Executor executor;
  private final Positions positions;
  private final long maxWriteBytes;
  private final WriteSignals signals = new WriteSignals();
  private final AtomicLong inFlight = new AtomicLong();
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private volatile boolean closing;

  public LocalPluginStore(CommitlaneDatabase db, Store store, String log, Executor executor) {
    this.db = db;
    this.store = store;
    this.log = log;
    this.executor = executor;
    // A record holds the commit's keys and values, and never spans two segments: leave room for its framing.
    this.maxWriteBytes = log == null ? 1L << 30 : db.settings().log().maxSegmentBytes() - 64 * 1024;
    byte[] reserved = db.storage().get(store, Keys.reserved());
    this.positions = new Positions(reserved == null ? 0 : java.nio.ByteBuffer.wrap(reserved).getLong(), this::reserve);
  }

  private CompletionStage<?> reserve(long limit) {
    return write(new StoreWrite().put(Keys.reserved(), java.nio.ByteBuffer.allocate(8).putLong(limit).array()));
  }

  @Override
  public byte[] get(byte[] key) {
    return db.storage().get(store, key);
  }

  @Override
  public List<byte[]> multiGet(List<byte[]> keys) {
    return db.storage().multiGet(store, keys);
  }

  @Override
  public List<KeyValue> scan(byte[] from, byte[] to, boolean reverse, int limit) {
    KeyRange range = (to == null ? KeyRange.all().from(from) : KeyRange.between(from, to)).in(store).limit(limit);
    return db.storage().list(reverse ? range.reverse() : range);
  }

  @Override
  public CompletionStage<Void> write(StoreWrite write) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    if (closing) {
      result.completeExceptionally(new DatabaseClosedException(db.path()));
      return result;
    }
    inFlight.incrementAndGet();
    result.whenComplete((v, e) -> {
      if (inFlight.decrementAndGet() == 0 && closing) {
        drained.complete(null);
      }
    });
    if (write.positions() == 0) {
      attempt(write, write.changes(), 1, result, null);
    } else {
      // Claimed before the commit starts, settled when it completes: the watermark never passes it unsettled.
      positions.during(write.positions(), first -> {
        CompletableFuture<Void> attempted = new CompletableFuture<>();
        attempt(write, write.resolved(first), 1, attempted, null);
        return attempted;
      }).whenComplete((v, e) -> {
        if (e == null) {
          result.complete(null);
        } else {
          result.completeExceptionally(Failures.unwrap(e));
        }
      });
    }
    return result;
  }

  /** One try of {@code write}: into the place {@code ticket} holds, or (null) into the queue if it has room. */
  private void attempt(StoreWrite write, List<Change> changes, int attempt, CompletableFuture<Void> result,
      AdmissionTicket ticket) {
    Transaction txn = db.begin();
    try {
      for (Expectation e : write.expectations()) {
        byte[] actual = txn.get(store, e.key());
        if (!Arrays.equals(actual, e.value())) {
          txn.abort();
          giveBack(ticket);
          result.completeExceptionally(new ConditionFailedException(e.key(), actual));
          return;
        }
      }
      for (Change c : changes) {
        if (c.value() == null) {
          txn.remove(store, c.key());
        } else {
          txn.put(store, c.key(), c.value());
        }
      }
      if (log != null) {
        txn.useLog(log);
      }
    } catch (RuntimeException e) {
      txn.abort();
      giveBack(ticket);
      result.completeExceptionally(e);
      return;
    }
    (ticket == null ? db.commit(txn) : db.commit(txn, ticket)).whenComplete((r, failure) -> {
      Throwable cause = Failures.unwrap(failure);
      if (cause == null) {
        result.complete(null);
      } else if (cause instanceof CommitQueueFullException) {
        whenAdmitted(write, changes, attempt, result); // nothing was admitted: the same try, once there is a place
      } else if (cause instanceof ConflictException && attempt < ATTEMPTS) {
        executor.execute(() -> attempt(write, changes, attempt + 1, result, null));
      } else {
        result.completeExceptionally(cause);
      }
    });
  }

  /**
   * Join the database's line for a place in its commit queue; once one is held, build {@code write} again (its
   * expectations read anew) and commit it into that place, on the plugin dispatcher (the grant runs on the thread
   * that freed the place, which must only hand the news over).
   */
  private void whenAdmitted(StoreWrite write, List<Change> changes, int attempt, CompletableFuture<Void> result) {
    CompletableFuture<Void> granted = new CompletableFuture<>();
    AdmissionTicket ticket = db.awaitAdmission(() -> granted.complete(null));
    granted.thenRunAsync(() -> attempt(write, changes, attempt, result, ticket), executor);
  }

  private static void giveBack(AdmissionTicket ticket) {
    if (ticket != null) {
      ticket.cancel();
    }
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
  public String largerWrites() {
    return log == null ? "" : ", or raise commitlane.txlog.max-segment-size (a commit is one transaction-log record)";
  }

  @Override
  public String describe() {
    return "database " + db.path();
  }

  CommitlaneDatabase database() {
    return db;
  }

  /** Refuse new writes, let the started ones finish, then close the database handle. */
  @Override
  public CompletionStage<Done> close() {
    closing = true;
    if (inFlight.get() == 0) {
      drained.complete(null);
    }
    return drained.thenCompose(v -> db.closeAsync());
  }
}
