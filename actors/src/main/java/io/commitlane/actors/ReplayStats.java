package io.commitlane.actors;

/**
 * What crash replay did with one transaction log when its database was opened (WAL off recovery).
 *
 * @param transactions records whose writes were applied (all of them, or all but the skipped ones)
 * @param skippedWrites writes left out because their store was dropped before the crash (its
 *     name gone, or now belonging to a newer generation of the store)
 */
public record ReplayStats(long transactions, long skippedWrites) {}
