package io.commitlane.actors.internal.log;

import io.commitlane.actors.internal.pipeline.Faults;
import io.commitlane.storage.CommitOutcomeUnknownException;
import io.commitlane.storage.Database;
import io.commitlane.storage.internal.commit.LogRecordRef;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.txlog.CorruptLogFrameException;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.TransactionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the log record of a failed commit dead when its log could not write the abort marker (a
 * full disk). The record may be in the file, and a reopened log recovers it as live: replayed, it
 * would bring back a commit the client was told failed, perhaps over a newer value; read, it would
 * show a change feed a commit the database does not hold. So a dead marker ({@link
 * ReplayMarkers#markDead}) is written into RocksDB and flushed (a flush makes it durable with
 * RocksDB's WAL on or off). Only then does the log drop the record from its uncommitted set and
 * hide it from its readers, so its flushed position cannot pass the record before it is dead.
 *
 * <p>Every later open decides from that one marker, for replay and readers alike ({@link
 * #settle}): the record is not applied, and its abort marker is written into the log, so readers,
 * a reader of the log opened directly among them, skip it from then on. The dead marker stays
 * until an open finds the log already holding the abort marker, so no crash in between can bring
 * the record back.
 *
 * <p>If the dead marker cannot be written or flushed, nothing can tell a later open that the
 * record is dead: with replay the commit's outcome is unknown ({@link
 * CommitOutcomeUnknownException}, which stops the database's commits until it is reopened), and
 * the record stays uncommitted in memory, so no reader sees it (nor anything after it) before the
 * reopen. Whatever RocksDB then holds decides at the reopen, for replay and readers alike: the
 * dead marker (the record is hidden, not applied) or not (the record is applied, and readers show
 * it with its data).
 */
public final class DeadRecords {
  private static final Logger LOG = LoggerFactory.getLogger(DeadRecords.class);

  private DeadRecords() {}

  /**
   * The commit's write failed with {@code cause} and {@code abortFailure} kept its record from being
   * aborted. Returns when the record is dead (the commit is then known not to have happened).
   *
   * @throws CommitOutcomeUnknownException if it could not be made dead and {@code replay} may apply it at the reopen
   */
  static void bury(Database db, Faults faults, boolean replay, PendingCommit c, LogRecordRef r, TransactionLog log, Throwable cause,
      RuntimeException abortFailure) {
    try {
      faults.beforeDeadMarker();
      ReplayMarkers.markDead(db, r.log(), r.position());
      faults.beforeDeadMarkerFlush();
      db.flush();
    } catch (RuntimeException e) {
      e.addSuppressed(abortFailure);
      if (replay) {
        LOG.error("transaction {} failed ({}), and its record at {} in log '{}' could neither be aborted ({}) nor"
            + " marked dead: the database refuses commits until it is reopened", c.transactionId(), cause, LogPosition.toString(r.position()), r.log(),
            abortFailure.getMessage(), e);
        throw new CommitOutcomeUnknownException(c.transactionId(), "its write failed, and its record in transaction"
            + " log '" + r.log() + "' could be neither aborted nor marked dead", e);
      }
      // Without replay nothing of it is ever applied: the commit failed. Only readers after a reopen may show it.
      LOG.error("transaction {} failed ({}), and its record at {} in log '{}' could neither be aborted ({}) nor"
          + " marked dead: nothing of it was written, but the log's readers may return its record after a reopen",
          c.transactionId(), cause, LogPosition.toString(r.position()), r.log(), abortFailure.getMessage(), e);
    }
    log.markDead(r.position());
    cause.addSuppressed(abortFailure);
    LOG.warn("transaction {} failed ({}); its record at {} in log '{}' could not be aborted ({}), so it was marked"
        + " dead instead: nothing of it was written", c.transactionId(), cause, LogPosition.toString(r.position()), r.log(), abortFailure.getMessage());
  }

  /**
   * At open, before replay: the records of {@code log} that dead markers name and that the log
   * still returns as live. Replay must skip them and the caller must abandon them (write their
   * abort markers), so readers skip them too. The dead markers the log already agrees with (its
   * record is aborted, or gone with its segment) are deleted: the log says it by itself now.
   */
  static TreeSet<Long> settle(Database db, TransactionLog log) {
    TreeSet<Long> live = new TreeSet<>();
    List<Long> settled = new ArrayList<>();
    for (long position : ReplayMarkers.dead(db, log.name())) {
      if (position < log.replayEnd() && returnsRecordAt(log, position)) {
        live.add(position);
      } else {
        settled.add(position);
      }
    }
    ReplayMarkers.forgetDead(db, log.name(), settled);
    return live;
  }

  private static boolean returnsRecordAt(TransactionLog log, long position) {
    // The end is a byte bound: the record must lie whole before it.
    try (LogReader reader = log.reader(ReadRequest.fromPosition(position).endBefore(log.replayEnd()))) {
      LogRecord r = reader.next();
      return r != null && r.position() == position;
    } catch (CorruptLogFrameException e) {
      return false; // damage: recovery reports it, and there is no record to return
    }
  }
}
