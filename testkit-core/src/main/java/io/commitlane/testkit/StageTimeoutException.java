package io.commitlane.testkit;

/**
 * A schedule step, a barrier or a forced write stall ({@link WriteStall}) did not happen in time; the
 * message says where each commit was, or what RocksDB reported.
 */
public final class StageTimeoutException extends AssertionError {
  public StageTimeoutException(String message) {
    super(message);
  }
}
