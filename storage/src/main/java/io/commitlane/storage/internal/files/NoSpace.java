package io.commitlane.storage.internal.files;

import java.io.IOException;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * Whether a failure was a full disk: RocksDB says so with its {@code NoSpace} subcode; the JDK
 * only in the message of the {@link IOException} (the system's text for {@code ENOSPC}).
 */
public final class NoSpace {
  private static final String ENOSPC = "No space left on device";

  private NoSpace() {}

  public static boolean causes(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof RocksDBException r && r.getStatus() != null && r.getStatus().getSubCode() == Status.SubCode.NoSpace) {
        return true;
      }
      if (t instanceof IOException && t.getMessage() != null && t.getMessage().contains(ENOSPC)) {
        return true;
      }
    }
    return false;
  }
}
