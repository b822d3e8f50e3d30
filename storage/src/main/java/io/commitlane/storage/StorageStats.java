package io.commitlane.storage;

import io.commitlane.storage.internal.commit.VersionTable;

/**
 * Counters of one open database (shared by all handles of its path), since it was opened.
 *
 * @param commits transactions committed
 * @param conflicts commits refused by validation: a key they read (or, with {@link BlindWrites#CONFLICT}, wrote) was
 *     written after their baseline
 * @param failures commits that failed for another reason (RocksDB error, hook, injected failure)
 * @param writes non-transactional batches written
 * @param versionTableChunks version-table chunks allocated so far (each {@code 4096 * 8} bytes)
 * @param groups merged write groups validated ({@link Database#commitGroup})
 * @param groupMembers transactions that went through those groups (committed or not)
 * @param groupConflicts group members refused because an earlier member of their group wrote what they touched
 * @param conservativeConflicts conflicts (included in {@code conflicts}) assumed because the record of recent writes had
 *     forgotten as far back as the transaction's baseline (a transaction held open while much was written), or, for a
 *     tracked scan, because the ordered record of writes did not reach back to it (see docs/reads.md); 0 otherwise
 * @param recentWriteSlots slots allocated by the record of recently written keys (each 16 bytes; at most 262,144)
 * @param health the last known health of RocksDB's background work ({@link Database#health()} looks again)
 */
public record StorageStats(long commits, long conflicts, long failures, long writes, int versionTableChunks,
    long groups, long groupMembers, long groupConflicts, long conservativeConflicts, long recentWriteSlots,
    DatabaseHealth health) {
  /** Bytes held by validation (about): the version table's chunks and the recent-writes slots. */
  public long validationBytes() {
    return (long) versionTableChunks * VersionTable.CHUNK_SIZE * Long.BYTES + recentWriteSlots * 2 * Long.BYTES;
  }

  /** Mean members per merged write group, 0 before the first group. */
  public double meanGroupSize() {
    return groups == 0 ? 0 : (double) groupMembers / groups;
  }
}
