package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import java.util.Objects;
import org.rocksdb.ColumnFamilyHandle;

/**
 * A named store inside a database (a RocksDB column family). Keys in different stores never
 * conflict with each other. Obtain one from {@link Database#store(String)} or {@link
 * Database#createStore(String)}; a store belongs to the database it came from (and every handle
 * of that path).
 *
 * <p>A {@code Store} is one <em>generation</em> of its name. Once dropped ({@link
 * Database#dropStore(String)}) it stays dropped: using it throws {@link StoreDroppedException},
 * even after the name was created again (that is another {@code Store}, with another {@link
 * #generation()}).
 */
public final class Store {
  /** The name of the store every database has. */
  public static final String DEFAULT = "default";
  /**
   * The column family commitlane keeps its own records in (for example which logged commits
   * RocksDB already holds, for crash replay). Never listed, written or dropped through the API.
   */
  static final String INTERNAL = "__commitlane_internal";

  private final SharedDatabase owner;
  private final String name;
  private final int id;
  private final ColumnFamilyHandle handle;
  private final int generation;
  /** Null for the default store, which cannot be dropped: its commits and reads take no claim. */
  private final StoreState state;

  Store(SharedDatabase owner, String name, int id, ColumnFamilyHandle handle) {
    this.owner = owner;
    this.name = Objects.requireNonNull(name);
    this.id = id;
    this.handle = handle;
    this.generation = handle.getID();
    this.state = DEFAULT.equals(name) || INTERNAL.equals(name) ? null : new StoreState();
  }

  public String name() {
    return name;
  }

  /**
   * RocksDB's column-family id: unique within the database for its whole life, so a store created
   * again under a dropped name has another generation. Transaction-log records carry it, which is
   * how crash replay tells writes to a dropped generation from writes to the new one.
   */
  public int generation() {
    return generation;
  }

  /** Whether this store was dropped (logically: it may still be finishing commits admitted before). */
  public boolean isDropped() {
    return state != null && !state.isLive();
  }

  /** INTERNAL API: whether this is commitlane's own store, which holds no user data. */
  @InternalApi
  public boolean isInternal() {
    return INTERNAL.equals(name);
  }

  /** INTERNAL API: the number this store's writes are recorded under in the commit path. */
  @InternalApi
  public int id() {
    return id;
  }

  ColumnFamilyHandle handle() {
    return handle;
  }

  SharedDatabase owner() {
    return owner;
  }

  /** Null for the default store. */
  StoreState state() {
    return state;
  }

  /** Fail fast with {@link StoreDroppedException} when dropped; no claim is taken. */
  void requireLive() {
    if (state != null && !state.isLive()) {
      throw dropped();
    }
  }

  /**
   * Claim this store for one read or write, so its handle stays open until {@link #release()}.
   * Returns false for the default store (nothing to release); throws when dropped.
   */
  boolean claim() {
    if (state == null) {
      return false;
    }
    if (!state.tryClaim()) {
      throw dropped();
    }
    return true;
  }

  void release() {
    state.release();
  }

  StoreDroppedException dropped() {
    return new StoreDroppedException(name, generation, owner.path());
  }

  @Override
  public String toString() {
    return "Store[" + name + "#" + generation + " of " + owner.path() + "]";
  }
}
