package io.commitlane.storage;

/**
 * A committed transaction.
 *
 * @param transactionId the transaction's id
 * @param version the commit-clock value stamped on its keys; later commits to the same keys have
 *     higher versions, so versions order commits per key
 * @param attachment what the commit hook attached (the transaction-log position, when logging)
 */
public record CommitResult(long transactionId, long version, Object attachment) {}
