package io.commitlane.actors.projection.internal;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.UnknownLogException;
import io.commitlane.actors.projection.ProjectionConflictException;
import io.commitlane.actors.projection.ProjectionPositionException;
import io.commitlane.storage.ConflictException;
import io.commitlane.storage.DatabaseClosedException;
import io.commitlane.storage.InvalidStoreNameException;
import io.commitlane.storage.ReadOnlyDatabaseException;
import io.commitlane.storage.Store;
import io.commitlane.storage.StoreDroppedException;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.UnknownStoreException;
import io.commitlane.txlog.CorruptLogFrameException;
import io.commitlane.txlog.LogClosedException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

/**
 * A projection's records and commits on a local database: records from the log's reader (the
 * committed watermark: a record is read only once its data is readable), and each batch committed
 * as one transaction on the database's commit executors, its stored position read in it (tracked:
 * a commit that wrote the position after this transaction's snapshot makes it conflict) and
 * written in it.
 */
public final class LocalProjectionStore implements ProjectionStore<LogRecord, Transaction> {
  private static final Pattern LOG_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

  private final CommitlaneDatabase db;
  private final String log;

  public LocalProjectionStore(CommitlaneDatabase db, String log) {
    this.db = db;
    this.log = log;
  }

  public static String checkLog(String log) {
    if (log == null || !LOG_NAME.matcher(log).matches()) {
      throw new IllegalArgumentException("log name " + (log == null ? "null" : '"' + log + '"')
          + " is invalid: a log name is 1..128 of A-Z a-z 0-9 . _ -, not starting with '.'");
    }
    return log;
  }

  @Override
  public String describe() {
    return "log '" + log + "' of database " + db.path();
  }

  @Override
  public String log() {
    return log;
  }

  /** Creates the offset store if it is not there yet (on the lifecycle dispatcher), then reads the position. */
  @Override
  public CompletionStage<StoredPosition> load(String offsetStore, String projection) {
    db.transactionLog(log); // a log the database does not have: UnknownLogException now, and nothing is created
    return db.createStore(offsetStore)
        .thenApply(store -> StoredPosition.decode(db.storage().get(store, key(projection)), projection, log, where(offsetStore)));
  }

  /**
   * Reads from the stored position itself (inclusive), to see that the log still holds it: a log
   * whose retention purged the segments after a stopped projection's position would otherwise
   * resume at its oldest segment, past records the projection never saw.
   */
  @Override
  public RecordReader<LogRecord> reader(String projection, long position) {
    ReadRequest from = position < 0 ? ReadRequest.fromStart() : ReadRequest.fromPosition(position);
    LogReader reader = db.transactionLog(log).reader(from);
    return new RecordReader<>() {
      private boolean checked = position < 0;

      @Override
      public List<LogRecord> poll(int max) {
        List<LogRecord> out = new ArrayList<>(Math.min(max, 64));
        while (out.size() < max) {
          LogRecord r = reader.next();
          if (r == null) {
            break;
          }
          if (!checked) {
            checked = true;
            if (r.position() == position) {
              continue; // the record at the stored position, handled already
            }
            checkNoGap(projection, position, r.position());
          }
          out.add(r);
        }
        return out;
      }

      @Override
      public CompletionStage<Void> whenMore() {
        return reader.whenMoreCommitted();
      }

      @Override
      public void close() {
        reader.close();
      }
    };
  }

  /**
   * The record at the stored position {@code stored} is gone and {@code first} is the first one
   * left after it. Segments are purged whole, so if {@code first} is in the segment right after
   * the stored one the stored record may have been its segment's last (nothing lost, or nothing
   * that can be told); if it is further on, whole segments after the stored position are gone.
   */
  private void checkNoGap(String projection, long stored, long first) {
    long storedSegment = LogPosition.segment(stored);
    if (LogPosition.segment(first) > storedSegment + 1) {
      throw new ProjectionPositionException(projection, "log '" + log + "' of database " + db.path() + " no longer holds the records"
          + " after the projection's stored position " + LogPosition.toString(stored) + ": the first it holds is at "
          + LogPosition.toString(first) + ", and segments " + (storedSegment + 1) + ".." + (LogPosition.segment(first) - 1)
          + " are gone (purged by txlog.retention, or lost). Going on would skip their records; rebuild the projection (delete"
          + " its read model and its stored position), or restore the log");
    }
  }

  @Override
  public long position(LogRecord record) {
    return record.position();
  }

  @Override
  public long timestamp(LogRecord record) {
    return record.timestamp();
  }

  /** Under {@code txlog.durability = fsync}, the fsync covering the record; at once otherwise. */
  @Override
  public CompletionStage<Void> whenDurable(LogRecord record) {
    return db.internalTransactionLog(log).whenDurable(record.position());
  }

  @Override
  public CompletionStage<Long> commit(String offsetStore, String projection, long expected, List<LogRecord> records,
      io.commitlane.actors.projection.ProjectionHandler<LogRecord, Transaction> handler) {
    Store store = db.storage().findStore(offsetStore).orElseThrow(() -> new UnknownStoreException(offsetStore, db.path()));
    byte[] key = key(projection);
    Transaction txn = db.begin();
    try {
      StoredPosition stored = StoredPosition.decode(txn.get(store, key), projection, log, where(offsetStore));
      if (stored.position() != expected) {
        txn.abort();
        return CompletableFuture.failedFuture(new ProjectionConflictException(projection, expected, stored.position(), null));
      }
      handler.handle(txn, records);
      LogRecord last = records.get(records.size() - 1);
      txn.put(store, key, new StoredPosition(last.position(), last.timestamp(), log).encode());
    } catch (Exception e) {
      txn.abort();
      return CompletableFuture.failedFuture(e);
    }
    return db.commit(txn).handle((result, error) -> {
      if (error == null) {
        return 0L;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof ConflictException) {
        throw new ProjectionConflictException(projection, expected, ProjectionConflictException.UNKNOWN, cause);
      }
      throw error instanceof CompletionException c ? c : new CompletionException(cause);
    });
  }

  /** Local commits are readable once acknowledged. */
  @Override
  public CompletionStage<Void> whenVisible(long commit) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public FailureKind classify(Throwable failure) {
    if (failure instanceof CommitQueueFullException) {
      return FailureKind.RETRY_SOON;
    }
    if (failure instanceof DatabaseClosedException || failure instanceof LogClosedException
        || failure instanceof UnknownLogException || failure instanceof ReadOnlyDatabaseException
        || failure instanceof StoreDroppedException || failure instanceof UnknownStoreException
        || failure instanceof InvalidStoreNameException || failure instanceof ProjectionPositionException
        // a corrupt frame lost a record: going on would leave a gap in the projection
        || failure instanceof CorruptLogFrameException
        || failure instanceof IllegalArgumentException || failure instanceof IllegalStateException) {
      return FailureKind.PERMANENT;
    }
    return FailureKind.TRANSIENT;
  }

  private static byte[] key(String projection) {
    return projection.getBytes(StandardCharsets.UTF_8);
  }

  private String where(String offsetStore) {
    return "store '" + offsetStore + "' of database " + db.path();
  }
}
