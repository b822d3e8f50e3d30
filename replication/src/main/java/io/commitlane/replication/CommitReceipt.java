package io.commitlane.replication;

/**
 * A replicated commit that a majority of the group holds and the leader applied.
 *
 * @param index its position in the group's log: every replica applies it there
 * @param resent whether this answers a resent request id whose first attempt had committed (at
 *     {@code index}); nothing was applied a second time
 */
public record CommitReceipt(long index, boolean resent) {}
