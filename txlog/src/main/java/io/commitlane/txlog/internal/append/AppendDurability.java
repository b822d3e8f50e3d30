package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogPosition;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import io.commitlane.txlog.TransactionLogException;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The durability side of an appender that writes on its callers' threads ({@link
 * SerializedAppender}, {@link LeaderlessAppender}): under {@link Durability#FSYNC} a force thread
 * ({@link GroupCommitter}) forces what the appender wrote and answers durability requests; under
 * PROCESS and NONE nothing is forced and every appended record is already as durable as the log
 * promises.
 */
final class AppendDurability {
  private final String logName;
  private final LongSupplier appendedEnd;
  /** {@code null} unless the durability is FSYNC. */
  private final GroupCommitter committer;

  /**
   * Starts the force thread under FSYNC.
   *
   * @param end where the log ends at open (everything below it is durable)
   * @param forcer forces what the appender wrote
   * @param appendedEnd the end of what the appender has appended so far
   */
  AppendDurability(String logName, LogSettings settings, long end, GroupCommitter.Forcer forcer,
      LongSupplier appendedEnd, LongSupplier bytesAppended, LongSupplier recordsAppended) {
    this.logName = logName;
    this.appendedEnd = appendedEnd;
    if (settings.durability() == Durability.FSYNC) {
      this.committer = new GroupCommitter(logName, end, forcer, bytesAppended, recordsAppended, settings);
      this.committer.start();
    } else {
      this.committer = null;
    }
  }

  /** Whether records are forced (FSYNC), so a durability request may have to wait. */
  boolean forces() {
    return committer != null;
  }

  /** {@link TransactionLog#whenDurable}: a position at or past the appended end was never appended. */
  CompletableFuture<Void> whenDurable(long position) {
    if (committer == null) {
      return CompletableFuture.completedFuture(null);
    }
    if (position >= appendedEnd.getAsLong()) {
      throw new IllegalArgumentException("position " + LogPosition.toString(position)
          + " was not appended to transaction log '" + logName + "'");
    }
    return committer.whenDurable(position);
  }

  /**
   * Blocks until {@link #whenDurable} completes.
   *
   * @throws TransactionLogException the error the future failed with
   */
  void awaitDurable(long position) {
    Appender.await(whenDurable(position));
  }

  /** After abort markers were written: blocks until the last one ({@code lastMarker}) is durable; -1, none was written. */
  void awaitMarker(long lastMarker) {
    if (lastMarker >= 0) {
      awaitDurable(lastMarker);
    }
  }

  /** The failure that stopped forcing, or {@code null} (always without FSYNC). */
  TransactionLogException failure() {
    return committer == null ? null : committer.failure();
  }

  /** The appender's counters, with this side's fsync figures added. */
  Appender.Counters counters(long records, long bytes, int unfinished, int lag) {
    long fsyncs = committer == null ? 0 : committer.forces();
    double perFsync = fsyncs == 0 ? 0 : (double) committer.recordsForced() / fsyncs;
    return new Appender.Counters(records, bytes, unfinished, lag, fsyncs, perFsync,
        committer == null ? 0 : committer.durableEnd());
  }

  /**
   * Under FSYNC: stops the force thread after a last force for everything written, and returns
   * the failure that kept something from being durable, or {@code null}. Otherwise does nothing
   * and returns {@code null}.
   */
  TransactionLogException close() {
    if (committer == null) {
      return null;
    }
    committer.close();
    return committer.failure();
  }
}
