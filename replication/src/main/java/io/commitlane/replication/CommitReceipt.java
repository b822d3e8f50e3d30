package io.commitlane.replication;

/**
 * A replicated commit that a majority of the group holds and the leader applied.
 *
 * @param index its position in the group's log: every replica applies it there
 * @param slot its place within the entry at {@code index} (0 when the entry holds only it):
 *     commits that were sent together share an entry and are validated and applied in slot order
 * @param resent whether this answers a resent request id whose first attempt had committed (at
 *     {@code index}, {@code slot}); nothing was applied a second time
 */
public record CommitReceipt(long index, int slot, boolean resent) {
  /** A receipt for a commit alone in its entry (slot 0). */
  public CommitReceipt(long index, boolean resent) {
    this(index, 0, resent);
  }
}
