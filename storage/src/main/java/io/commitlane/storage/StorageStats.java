package io.commitlane.storage;

/**
 * Counters of one open database (shared by all handles of its path), since it was opened.
 *
 * @param commits transactions committed
 * @param conflicts commits refused by validation
 * @param failures commits that failed for another reason (RocksDB error, hook, injected failure)
 * @param writes non-transactional batches written
 * @param versionTableChunks version-table chunks allocated so far (each {@code 4096 * 8} bytes)
 * @param groups merged write groups validated ({@link Database#commitGroup})
 * @param groupMembers transactions that went through those groups (committed or not)
 * @param groupConflicts group members refused because an earlier member of their group wrote what they touched
 */
public record StorageStats(long commits, long conflicts, long failures, long writes, int versionTableChunks,
    long groups, long groupMembers, long groupConflicts) {
  /** Mean members per merged write group, 0 before the first group. */
  public double meanGroupSize() {
    return groups == 0 ? 0 : (double) groupMembers / groups;
  }
}
