package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.internal.commit.PendingCommit;
import java.util.List;
import java.util.Objects;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;

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
      return shared.rocks().get(shared.internalStore().handle(), key);
    } catch (RocksDBException e) {
      throw new StorageException("read of commitlane's own records failed in " + shared.path(), e);
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
      shared.requireWritable("write commitlane's own records");
      writeBatch(keys, values);
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
      shared.requireWritable("delete commitlane's own records");
      // One range tombstone, no locks: nobody else writes these keys.
      shared.rocks().deleteRange(shared.internalStore().handle(), shared.writeOptions(), from, to);
    } catch (RocksDBException e) {
      throw new StorageException("cannot delete commitlane's own records in " + shared.path(), e);
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
      scanRange(from, to, visitor);
    } finally {
      handle.exit();
    }
  }
  private void writeBatch(List<byte[]> keys, List<byte[]> values) {
    ColumnFamilyHandle store = shared.internalStore().handle();
    try (WriteBatch batch = new WriteBatch()) {
      for (int i = 0; i < keys.size(); i++) {
        if (values.get(i) == null) {
          batch.delete(store, keys.get(i));
        } else {
          batch.put(store, keys.get(i), values.get(i));
        }
      }
      shared.rocks().write(shared.writeOptions(), batch);
    } catch (RocksDBException e) {
      throw new StorageException("cannot write commitlane's own records in " + shared.path(), e);
    }
  }

  private void scanRange(byte[] from, byte[] to, Visitor visitor) {
    try (ReadOptions ro = new ReadOptions(); Slice upper = new Slice(to)) {
      ro.setIterateUpperBound(upper);
      try (RocksIterator it = shared.rocks().newIterator(shared.internalStore().handle(), ro)) {
        for (it.seek(from); it.isValid(); it.next()) {
          if (!visitor.visit(it.key(), it.value())) {
            return;
          }
        }
        it.status();
      }
    } catch (RocksDBException e) {
      throw new StorageException("cannot read commitlane's own records in " + shared.path(), e);
    }
  }
}
