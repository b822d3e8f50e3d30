package io.commitlane.storage;

import io.commitlane.storage.internal.commit.LogRecordRef;

/**
 * A committed transaction.
 *
 * @param transactionId the transaction's id
 * @param version the commit-clock value stamped on its keys; later commits to the same keys have
 *     higher versions, so versions order commits per key
 * @param logRecord where the commit's transaction-log record went, or null when it logged nothing
 *     (INTERNAL API: applications read it through {@code io.commitlane.actors.LogAppend.of})
 */
public record CommitResult(long transactionId, long version, LogRecordRef logRecord) {}
