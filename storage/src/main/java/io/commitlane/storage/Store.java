package io.commitlane.storage;

import java.util.Objects;
import org.rocksdb.ColumnFamilyHandle;

/**
 * A named store inside a database (a RocksDB column family). Keys in different stores never
 * conflict with each other. Obtain one from {@link Database#store(String)}; a store belongs to
 * the database it came from (and every handle of that path).
 */
public final class Store {
  /** The name of the store every database has. */
  public static final String DEFAULT = "default";

  private final SharedDatabase owner;
  private final String name;
  private final int id;
  private final ColumnFamilyHandle handle;

  Store(SharedDatabase owner, String name, int id, ColumnFamilyHandle handle) {
    this.owner = owner;
    this.name = Objects.requireNonNull(name);
    this.id = id;
    this.handle = handle;
  }

  public String name() {
    return name;
  }

  int id() {
    return id;
  }

  ColumnFamilyHandle handle() {
    return handle;
  }

  SharedDatabase owner() {
    return owner;
  }

  @Override
  public String toString() {
    return "Store[" + name + " of " + owner.path() + "]";
  }
}
