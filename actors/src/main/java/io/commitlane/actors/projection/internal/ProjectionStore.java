package io.commitlane.actors.projection.internal;

import io.commitlane.actors.projection.ProjectionConflictException;
import io.commitlane.actors.projection.ProjectionHandler;
import io.commitlane.annotation.InternalApi;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * INTERNAL API. The seam between the projection runner ({@link ProjectionSource}) and one kind of
 * database: where the records come from, and how a batch's writes and its position are committed
 * together. A local database implements it in this module, a replicated one in {@code
 * replication-actors}. Every method is called from the runner's stage, one at a time.
 *
 * <p>What an implementation must keep, for exactly-once:
 * <ul>
 *   <li>{@link #commit} reads the stored position inside the batch's transaction as a read the
 *       commit is validated against, and writes the new one in the same transaction: the handler's
 *       writes and the position commit together or not at all, and a commit whose stored position
 *       changed after it was read (another runner's batch) never applies.
 *   <li>Positions grow with the log and mean the same after a restart of the process (and, for a
 *       replicated database, on every replica).
 * </ul>
 *
 * @param <R> the record type of the log
 * @param <T> the transaction type the handler writes through
 */
@InternalApi
public interface ProjectionStore<R, T> {
  /** The log and database, for messages ({@code log 'orders' of database /data/shop}). */
  String describe();

  /** The name of the log the projection reads. */
  String log();

  /**
   * The stored position of {@code projection} in store {@code offsetStore} ({@link
   * StoredPosition#none} if it has none), as of every batch committed before the call. Must not
   * block the caller for long.
   */
  CompletionStage<StoredPosition> load(String offsetStore, String projection);

  /**
   * A reader of the log's records after {@code position} (from the oldest retained one when
   * negative). Its {@code poll} fails with {@link io.commitlane.actors.projection.ProjectionPositionException}
   * where it can tell that records after the position are gone.
   */
  RecordReader<R> reader(String projection, long position);

  /** A record's position in its log. */
  long position(R record);

  /** A record's timestamp, in milliseconds since the epoch. */
  long timestamp(R record);

  /**
   * Completes once {@code record} is as durable as the log can make it (a local log under {@code
   * txlog.durability = fsync}: covered by an fsync), so that a batch's position is never stored
   * before its records are durable. Completes at once where every record a reader sees is durable
   * already. May complete on any thread.
   */
  CompletionStage<Void> whenDurable(R record);

  /**
   * Commit {@code records} (at least one) after stored position {@code expected}: begin a
   * transaction, read the stored position in it (a different one fails with {@link
   * ProjectionConflictException} and writes nothing), run {@code handler} on the calling thread,
   * write the position of the last record, and commit. Completes with a reference of the commit
   * for {@link #whenVisible}; fails with {@link ProjectionConflictException} when the commit lost a
   * race, with whatever the handler threw, or with the database's error. The transaction is
   * aborted on every failure before the commit.
   */
  CompletionStage<Long> commit(String offsetStore, String projection, long expected, List<R> records,
      ProjectionHandler<R, T> handler);

  /**
   * Completes once the next transaction this store begins sees the commit {@code commit} returned
   * (at once where commits are visible when acknowledged).
   */
  CompletionStage<Void> whenVisible(long commit);

  /** What the runner should do after {@code failure} (unwrapped), one that is not a conflict or a handler error. */
  FailureKind classify(Throwable failure);
}
