package io.commitlane.storage.internal.commit;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.LogNotAvailableException;
import io.commitlane.storage.NotDurableException;
import io.commitlane.storage.Transaction;

/**
 * Extends the commit path; the transaction log plugs in here. Every step runs on the committing
 * thread. A hook sees transactional commits only (non-transactional writes are not logged).
 *
 * <p>INTERNAL API: a seam for commitlane's own modules, not for applications.
 */
@InternalApi
public interface CommitHook {
  /**
   * Validation passed and the commit holds its locks; it will be written next. This is where the
   * transaction-log record is appended, so log order agrees with commit order on every key. A
   * thrown exception fails the commit and nothing is written.
   */
  default void beforeWrite(PendingCommit commit) {}

  /**
   * The RocksDB write returned and the locks are released. The hook completes what it began (for
   * example the log record's durability). If that fails, throw {@link NotDurableException}: the
   * commit is then reported failed with it (it is written, but cannot be vouched for). The other
   * hooks' after-write steps still run.
   */
  default void afterWrite(PendingCommit commit) {}

  /**
   * Whether this hook writes the transaction logs named by {@link Transaction#useLog}. Without
   * such a hook, {@code useLog} fails with {@link LogNotAvailableException} instead of letting the
   * entries be dropped.
   */
  default boolean writesLogs() {
    return false;
  }

  /**
   * {@link #beforeWrite} ran but the commit then failed without writing (RocksDB write error or an
   * injected failure). The hook undoes what it did, for example by marking a log record aborted.
   */
  default void aborted(PendingCommit commit, Throwable cause) {}
}
