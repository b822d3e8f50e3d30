package io.commitlane.storage;

/**
 * Counters of one open database (shared by all handles of its path), since it was opened.
 *
 * @param commits transactions committed
 * @param conflicts commits refused by validation
 * @param failures commits that failed for another reason (RocksDB error, hook, injected failure)
 * @param writes non-transactional batches written
 * @param versionTableChunks version-table chunks allocated so far (each {@code 4096 * 8} bytes)
 */
public record StorageStats(long commits, long conflicts, long failures, long writes, int versionTableChunks) {}
