package io.commitlane.actors.projection;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.projection.internal.LocalProjectionStore;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogRecord;
import java.util.Objects;

/**
 * Projections of a local database's transaction log into the same database. The handler's
 * transaction is an ordinary {@link Transaction} of the database (reads, scans, writes in any
 * store, even a log record of another log); it commits on the database's commit executors with the
 * projection's position, validated like any commit.
 *
 * <pre>{@code
 * Projection<LogRecord, Transaction> counts = LocalProjection.of(db, "order-counts", "orders", (txn, records) -> {
 *   for (LogRecord r : records) { ... txn.put(model, key, value) ... }
 * });
 * }</pre>
 *
 * <p>Records are {@link LogRecord}s as {@link io.commitlane.actors.stream.ChangeFeed} gives them
 * (read-only buffers); positions are log positions. Durability is the database's: with RocksDB's
 * WAL off the projection's commits, unless its handler logs them, are durable once RocksDB
 * flushed, and a crash that takes them takes the position with them, so the runner does them again.
 */
public final class LocalProjection {
  private LocalProjection() {}

  /**
   * A projection named {@code name} of log {@code log} of {@code db}, with {@link
   * ProjectionSettings#defaults()}. A runner stops with {@link io.commitlane.actors.UnknownLogException}
   * if the database has no such log when it starts: create it first ({@link
   * CommitlaneDatabase#createTransactionLog}) when the projection may start before the first commit
   * to it.
   *
   * @throws IllegalArgumentException for an invalid projection or log name
   */
  public static Projection<LogRecord, Transaction> of(CommitlaneDatabase db, String name, String log,
      ProjectionHandler<LogRecord, Transaction> handler) {
    Objects.requireNonNull(db, "db");
    Projection.checkName(name);
    return Projection.of(new LocalProjectionStore(db, LocalProjectionStore.checkLog(log)), name, handler,
        ProjectionSettings.defaults());
  }
}
