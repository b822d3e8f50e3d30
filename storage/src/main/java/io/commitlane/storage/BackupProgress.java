package io.commitlane.storage;

/**
 * Told how a backup, verification or restore advances: the phase ({@code rocksdb}, {@code logs},
 * {@code checksums}, {@code verify}, {@code restore}), and bytes done out of an estimated total.
 * Called on the thread running the operation: keep it short.
 */
@FunctionalInterface
public interface BackupProgress {
  BackupProgress NONE = (phase, done, total) -> { };

  void progress(String phase, long bytesDone, long bytesTotal);
}
