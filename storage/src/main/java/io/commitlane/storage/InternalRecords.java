package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.util.List;
import java.util.Objects;

/**
 * commitlane's own records in the database's internal column family, through one handle: the
 * actor pipeline's replay markers and request records. Commit hooks write them inside commits
 * ({@link PendingCommit#addInternalWrite}); these calls read, write and delete them outside
 * commits. Each call goes through the handle like every other (it fails with {@link
 * DatabaseClosedException} once the handle is closed). They take no lock and are not validated:
 * only commitlane writes these keys.
 */
@InternalApi
public final class InternalRecords {
  private final Database handle;
  private final SharedDatabase shared;

  InternalRecords(Database handle, SharedDatabase shared) {
    this.handle = handle;
    this.shared = shared;
  }

  /** Sees one record; returns whether to go on. */
  @FunctionalInterface
  public interface Visitor {
    boolean visit(byte[] key, byte[] value);
  }

  /** The record at {@code key}, or null. */
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key");
    handle.enter();
    try {
      return shared.getInternal(key);
    } finally {
      handle.exit();
    }
  }

  /**
   * Puts ({@code values} element non-null) and deletes (null) in one RocksDB write.
   *
   * @throws IllegalArgumentException if there are not as many values as keys
   */
  public void write(List<byte[]> keys, List<byte[]> values) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    if (keys.size() != values.size()) {
      throw new IllegalArgumentException(keys.size() + " keys but " + values.size() + " values");
    }
    handle.enter();
    try {
      shared.writeInternal(keys, values);
    } finally {
      handle.exit();
    }
  }

  /** Removes the records with keys in [from, to). */
  public void deleteRange(byte[] from, byte[] to) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    handle.enter();
    try {
      shared.deleteInternalRange(from, to);
    } finally {
      handle.exit();
    }
  }

  /** Visits the records with keys in [from, to), in key order, while {@code visitor} returns true. */
  public void scan(byte[] from, byte[] to, Visitor visitor) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(visitor, "visitor");
    handle.enter();
    try {
      shared.scanInternal(from, to, visitor);
    } finally {
      handle.exit();
    }
  }
}
