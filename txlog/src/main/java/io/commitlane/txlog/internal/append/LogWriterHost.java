package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.TransactionLog;

/**
 * Where the writer of an {@link AppendMode#ACTOR} log runs. A log's writer runs in turns ({@link
 * TransactionLog#writeQueued()}); when records and finishes are queued and no turn is pending, the
 * log asks its host for one. Without a host of its own a log runs its turns on a dedicated thread
 * ({@code commitlane-txlog-writer-<name>}); commitlane's actors make the transaction-log actor the
 * host ({@link TransactionLog#hostWriter}), so its mailbox orders writes, finishes and flush events.
 *
 * <p>INTERNAL API: the seam between the log and commitlane's actors.
 */
@FunctionalInterface
public interface LogWriterHost {
  /**
   * Arranges for {@code log.writeQueued()} to be called soon, on the host's own thread, and again
   * for as long as it returns {@code true}. Called from committing threads, which may hold a
   * commit's locks: it must not block, and must not run the turn itself.
   */
  void wake(TransactionLog log);
}
