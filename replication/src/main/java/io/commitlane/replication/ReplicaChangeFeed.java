package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.replication.internal.apply.AppliedWaiters;
import io.commitlane.replication.internal.entry.ReplicaRecords;
import io.commitlane.storage.Database;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Reads one transaction log of a replicated database from this node's replica, in log order,
 * from a position on: the records committed commits appended ({@link ReplicatedTransaction#log}),
 * as this replica applied them. Positions are the commits' indexes in the group's log, the same on
 * every replica: a reader that moves to another replica resumes after the last index it handled.
 *
 * <p>Pull-based: {@link #poll} returns what is there, {@link #whenMore} tells when to poll again.
 * One reader at a time. Holds nothing open between calls; close it when done.
 */
public final class ReplicaChangeFeed implements AutoCloseable {
  private final Supplier<Database> database;
  private final AppliedWaiters applied;
  private final String log;
  /** The index of the last record returned (or the index the feed was opened after). */
  private long position;
  /** Every change key below this index was looked at; records of other logs are not read twice. */
  private long scanFrom;
  /** The applied index up to which the last poll found nothing more for this log. */
  private long caughtUpTo;
  /** Opened from the oldest retained record: trimmed records before the first poll are not an error. */
  private boolean fromOldest;
  private boolean closed;

  /**
   * @param database the replica's database as it is now (a snapshot install replaces it)
   * @param applied the replica's applied index and its waiters
   */
  @InternalApi public ReplicaChangeFeed(Supplier<Database> database, AppliedWaiters applied, String log, long afterIndex) {
    this.database = database;
    this.applied = applied;
    this.log = log;
    this.fromOldest = afterIndex < 0;
    this.position = Math.max(0, afterIndex);
    this.scanFrom = position + 1;
  }

  public String log() {
    return log;
  }

  /** The index of the last record returned, or the one the feed was opened after. */
  public long position() {
    return position;
  }

  /**
   * The next records of the log after {@link #position()}, at most {@code max}, in index order;
   * empty when this replica holds none yet.
   *
   * @throws ChangesTrimmedException if records after the position were trimmed
   * @throws ReplicaUnavailableException if the replica is closed or being restored from a
   *     snapshot (poll again later)
   */
  public List<ReplicaLogRecord> poll(int max) {
    if (closed) {
      throw new IllegalStateException("the change feed of log '" + log + "' is closed");
    }
    if (max < 1) {
      throw new InvalidReplicaRequestException("poll at least 1 record, not " + max);
    }
    long appliedBefore = applied.applied();
    Database db = database.get();
    byte[] trimmed = db.internalRecords().get(ReplicaRecords.TRIMMED);
    long trimmedThrough = trimmed == null ? 0 : ReplicaRecords.readLong(trimmed);
    if (fromOldest) {
      position = Math.max(position, trimmedThrough);
      scanFrom = Math.max(scanFrom, position + 1);
      fromOldest = false;
    }
    if (trimmedThrough > position) {
      throw new ChangesTrimmedException(log, position, trimmedThrough);
    }
    List<ReplicaLogRecord> out = new ArrayList<>();
    long[] lastSeen = {scanFrom - 1};
    db.internalRecords().scan(ReplicaRecords.changesFrom(scanFrom), ReplicaRecords.CHANGES_END, (key, value) -> {
      long index = ReplicaRecords.changeIndex(key);
      if (ReplicaRecords.changeLog(key).equals(log)) {
        if (out.size() == max) {
          return false;
        }
        out.add(ReplicaLogRecord.decode(log, index, value));
      }
      lastSeen[0] = index;
      return true;
    });
    if (!out.isEmpty()) {
      position = out.get(out.size() - 1).index();
    }
    if (out.size() < max) { // the scan went to the end: nothing more up to what it saw
      scanFrom = Math.max(position, lastSeen[0]) + 1;
      caughtUpTo = Math.max(appliedBefore, lastSeen[0]);
    } else { // stopped at a record of this log: the next poll starts after the last one returned
      scanFrom = position + 1;
      caughtUpTo = position;
    }
    return out;
  }

  /**
   * Completes when this replica has applied a commit that the last {@link #poll} could not see:
   * poll again then (it may still find nothing, when that commit appended no record to this log).
   * Completes on the node's completion threads; fails with {@link ReplicaUnavailableException}
   * when the node closes.
   */
  public CompletionStage<Void> whenMore() {
    return applied.whenAppliedBeyond(caughtUpTo);
  }

  @Override
  public void close() {
    closed = true;
  }
}
