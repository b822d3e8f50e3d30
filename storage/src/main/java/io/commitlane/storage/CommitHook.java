package io.commitlane.storage;

/**
 * Extends the commit path; the transaction log plugs in here. Every step runs on the committing
 * thread. A hook sees transactional commits only (non-transactional writes are not logged).
 */
public interface CommitHook {
  /**
   * Validation passed and the commit holds its locks; it will be written next. This is where the
   * transaction-log record is appended, so log order agrees with commit order on every key. A
   * thrown exception fails the commit and nothing is written.
   */
  default void beforeWrite(PendingCommit commit) {}

  /**
   * The RocksDB write returned and the locks are released. The commit is done; exceptions thrown
   * here are logged by the caller's layer, not reported as commit failures.
   */
  default void afterWrite(PendingCommit commit) {}

  /**
   * {@link #beforeWrite} ran but the commit then failed without writing (RocksDB write error or an
   * injected failure). The hook undoes what it did, for example by marking a log record aborted.
   */
  default void aborted(PendingCommit commit, Throwable cause) {}
}
