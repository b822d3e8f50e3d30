package io.commitlane.storage;

import java.nio.file.Path;
import java.util.List;

/**
 * A checkpoint just taken: where it is, RocksDB's latest sequence number when its data was
 * captured (every write at or below it is in the copy), and the transaction logs it holds.
 */
public record CheckpointInfo(Path path, long sequence, List<CapturedLog> logs) {
  public CheckpointInfo {
    logs = List.copyOf(logs);
  }
}
