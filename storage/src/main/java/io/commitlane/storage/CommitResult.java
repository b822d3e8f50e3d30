package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.commit.LogRecordRef;

/**
 * A committed transaction.
 *
 * @param transactionId the transaction's id
 * @param version the commit-clock value stamped on its keys; later commits to the same keys have
 *     higher versions, so versions order commits per key
 * @param logRecord where the commit's transaction-log record went, or null when it logged nothing
 */
public record CommitResult(long transactionId, long version, LogRecordRef logRecord) {
  /**
   * INTERNAL API: where the commit's transaction-log record went, or null. Applications read it
   * through {@code io.commitlane.actors.LogAppend.of(result)}, which does not change with the
   * log's internals.
   */
  @InternalApi
  @Override
  public LogRecordRef logRecord() {
    return logRecord;
  }
}
