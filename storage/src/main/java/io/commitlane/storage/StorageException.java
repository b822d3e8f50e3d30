package io.commitlane.storage;

import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/** RocksDB reported a failure. {@link #status()} carries RocksDB's own status code and text. */
public final class StorageException extends CommitlaneException {
  private final Status status;

  public StorageException(String what, RocksDBException cause) {
    super(what + ": " + describe(cause), cause);
    this.status = cause.getStatus();
  }

  /** A failure without a RocksDB status (e.g. a runtime error around a native call). */
  public StorageException(String what, Throwable cause) {
    super(what + ": " + cause, cause);
    this.status = cause instanceof RocksDBException r ? r.getStatus() : null;
  }

  /** RocksDB's status, or {@code null} when RocksDB gave none. */
  public Status status() {
    return status;
  }

  private static String describe(RocksDBException e) {
    Status s = e.getStatus();
    return s == null ? String.valueOf(e.getMessage()) : s.getCodeString() + " " + e.getMessage();
  }
}
