package io.commitlane.storage;

import java.time.Instant;
import java.util.List;

/**
 * One backup: its id, when it was taken, RocksDB's latest sequence number when its data was
 * captured (every write at or below it is in it), its size (RocksDB's files, counted once per
 * backup even when shared with others, plus its logs), the commitlane format it was written in,
 * the identity of the database it was taken of, and its transaction logs. {@code complete} is
 * false for a backup a crash or a failure interrupted (the next create or purge removes it).
 */
public record BackupInfo(int id, Instant createdAt, long sequence, long sizeBytes, int formatVersion,
    String sourceIdentity, String sourcePath, List<CapturedLog> logs, boolean complete) {
  public BackupInfo {
    logs = List.copyOf(logs);
  }
}
