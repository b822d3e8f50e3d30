package io.commitlane.txlog;

/**
 * What a {@link TransactionLog#purge} did.
 *
 * @param segmentsDeleted segment files deleted
 * @param bytesDeleted their total size
 * @param segmentsKeptUnflushed expired segments kept because they hold records at or above the
 *     flushed position (replay may still need them)
 * @param activeSegmentKept whether the active segment was expired but kept because it is active
 */
public record PurgeResult(
    int segmentsDeleted, long bytesDeleted, int segmentsKeptUnflushed, boolean activeSegmentKept) {}
