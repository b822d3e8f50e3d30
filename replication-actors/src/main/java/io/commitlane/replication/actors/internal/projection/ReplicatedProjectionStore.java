package io.commitlane.replication.actors.internal.projection;

import io.commitlane.actors.projection.ProjectionConflictException;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.actors.projection.ProjectionPositionException;
import io.commitlane.actors.projection.internal.FailureKind;
import io.commitlane.actors.projection.internal.ProjectionStore;
import io.commitlane.actors.projection.internal.RecordReader;
import io.commitlane.actors.projection.internal.StoredPosition;
import io.commitlane.replication.ChangesTrimmedException;
import io.commitlane.replication.CommitRefusedException;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaChangeFeed;
import io.commitlane.replication.ReplicaConflictException;
import io.commitlane.replication.ReplicaLogRecord;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A projection's records and commits on a replicated database: records from this node's replica's
 * change feed, positions that are commit indexes; each batch one {@link ReplicatedTransaction} that
 * reads the stored position from this replica's snapshot (validated at every replica: a commit that
 * wrote it after the snapshot makes this one conflict) and writes the new one.
 */
public final class ReplicatedProjectionStore implements ProjectionStore<ReplicaLogRecord, ReplicatedTransaction> {
  private final ReplicatedDatabase db;
  private final String log;

  public ReplicatedProjectionStore(ReplicatedDatabase db, String log) {
    this.db = db;
    this.log = log;
  }

  @Override
  public String describe() {
    return "log '" + log + "' of replicated database '" + db.name() + "'";
  }

  @Override
  public String log() {
    return log;
  }

  /**
   * After a read barrier, so that a runner that moved to this node (or restarted after a commit
   * whose outcome it did not learn) starts from what the group committed, not from a replica behind.
   */
  @Override
  public CompletionStage<StoredPosition> load(String offsetStore, String projection) {
    return db.sync()
        .thenCompose(index -> db.get(offsetStore, key(projection), ReadConsistency.LOCAL))
        .thenApply(value -> StoredPosition.decode(value, projection, log, where(offsetStore)));
  }

  @Override
  public RecordReader<ReplicaLogRecord> reader(String projection, long position) {
    ReplicaChangeFeed feed = db.changes(log, position);
    return new RecordReader<>() {
      @Override
      public List<ReplicaLogRecord> poll(int max) {
        return feed.poll(max);
      }

      @Override
      public CompletionStage<Void> whenMore() {
        return feed.whenMore();
      }

      @Override
      public void close() {
        feed.close();
      }
    };
  }

  @Override
  public long position(ReplicaLogRecord record) {
    return record.index();
  }

  @Override
  public long timestamp(ReplicaLogRecord record) {
    return record.timestamp();
  }

  /** A change feed gives only records of commits a majority holds. */
  @Override
  public CompletionStage<Void> whenDurable(ReplicaLogRecord record) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Long> commit(String offsetStore, String projection, long expected, List<ReplicaLogRecord> records,
      ProjectionHandler<ReplicaLogRecord, ReplicatedTransaction> handler) {
    byte[] key = key(projection);
    ReplicatedTransaction txn = db.begin();
    try {
      StoredPosition stored = StoredPosition.decode(txn.get(offsetStore, key), projection, log, where(offsetStore));
      if (stored.position() != expected) {
        txn.abort();
        return CompletableFuture.failedFuture(new ProjectionConflictException(projection, expected, stored.position(), null));
      }
      handler.handle(txn, records);
      ReplicaLogRecord last = records.get(records.size() - 1);
      txn.put(offsetStore, key, new StoredPosition(last.index(), last.timestamp(), log).encode());
    } catch (Exception e) {
      txn.abort();
      return CompletableFuture.failedFuture(e);
    }
    return txn.commit().handle((receipt, error) -> {
      if (error == null) {
        return receipt.index();
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof ReplicaConflictException) {
        throw new ProjectionConflictException(projection, expected, ProjectionConflictException.UNKNOWN, cause);
      }
      throw error instanceof CompletionException c ? c : new CompletionException(cause);
    });
  }

  /**
   * The next transaction reads this replica: it must have applied the commit, or the next batch
   * would read a position older than its own and conflict. The leader applied it before it
   * answered; a follower may not have yet: then wait for a read barrier.
   */
  @Override
  public CompletionStage<Void> whenVisible(long commit) {
    if (db.status().appliedIndex() >= commit) {
      return CompletableFuture.completedFuture(null);
    }
    return db.sync().thenApply(index -> null);
  }

  @Override
  public FailureKind classify(Throwable failure) {
    if (failure instanceof ChangesTrimmedException // records it never read are gone: going on would leave a gap
        || failure instanceof CommitRefusedException || failure instanceof ProjectionPositionException
        || failure instanceof IllegalArgumentException || failure instanceof IllegalStateException) {
      return FailureKind.PERMANENT;
    }
    return FailureKind.TRANSIENT; // no leader in time (ReplicaUnavailableException), a storage error of this replica
  }

  private static byte[] key(String projection) {
    return projection.getBytes(StandardCharsets.UTF_8);
  }

  private String where(String offsetStore) {
    return "store '" + offsetStore + "' of replicated database '" + db.name() + "'";
  }
}
