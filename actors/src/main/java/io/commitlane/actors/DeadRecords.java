package io.commitlane.actors;

import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.Database;
import io.commitlane.storage.PendingCommit;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the log record of a failed commit dead when its log could not write the abort marker (a
 * full disk). The record may be in the file, and a reopened log recovers it as live: replayed, it
 * would bring back a commit the client was told failed, perhaps over a newer value. Crash replay
 * skips every record whose replay marker RocksDB holds ({@link ReplayMarkers}), so the record's
 * marker alone, without the commit's data, is written and flushed (a flush makes it durable with
 * RocksDB's WAL on or off). Only then does the log drop the record from its uncommitted set, so
 * its flushed position cannot pass the record before the record is dead. Without replay a record
 * is never applied at open, and dropping it is enough.
 *
 * <p>If the marker cannot be written or flushed either, nothing can tell a later open that the
 * record is dead: the commit's outcome is unknown ({@link CommitOutcomeUnknownException}, which
 * stops the database's commits until it is reopened), and the record stays uncommitted in memory.
 */
final class DeadRecords {
  private static final Logger LOG = LoggerFactory.getLogger(DeadRecords.class);

  private DeadRecords() {}

  /**
   * The commit's write failed with {@code cause} and {@code abortFailure} kept its record from being
   * aborted. Returns when the record is dead (the commit is then known not to have happened).
   *
   * @throws CommitOutcomeUnknownException if it could not be made dead
   */
  static void bury(Database db, Faults faults, boolean replay, PendingCommit c, LogAppend a, Throwable cause,
      RuntimeException abortFailure) {
    if (replay) {
      try {
        faults.beforeDeadMarker();
        db.internalRecords().write(List.of(ReplayMarkers.key(a.log(), a.position())), List.of(new byte[0]));
        db.flush();
      } catch (RuntimeException e) {
        e.addSuppressed(abortFailure);
        LOG.error("transaction {} failed ({}), and its record at {} in log '{}' could neither be aborted ({}) nor"
            + " marked dead for replay: the database refuses commits until it is reopened", c.transactionId(),
            cause, a, a.log(), abortFailure.getMessage(), e);
        throw new CommitOutcomeUnknownException(c.transactionId(), "its write failed, and its record in transaction log '"
            + a.log() + "' could be neither aborted nor marked dead for replay", e);
      }
    }
    a.store.markDead(a.position());
    cause.addSuppressed(abortFailure);
    LOG.warn("transaction {} failed ({}); its record at {} in log '{}' could not be aborted ({}), so it was marked"
        + " dead for replay instead: nothing of it was written", c.transactionId(), cause, a, a.log(),
        abortFailure.getMessage());
  }
}
