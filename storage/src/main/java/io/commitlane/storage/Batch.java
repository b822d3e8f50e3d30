package io.commitlane.storage;

import java.util.Objects;

/**
 * Non-transactional writes applied together, atomically, by {@link Database#write(Batch)}. They
 * are not validated (they never conflict) but take the same bucket locks as commits, so they can
 * neither land unseen between another commit's validation and its write nor be overwritten
 * unseen by a commit that validated before them. Not thread-safe; reusable after {@link #clear}.
 */
public final class Batch {
  private WriteBuffer writes = new WriteBuffer(8);

  public static Batch create() {
    return new Batch();
  }

  public Batch put(Store store, byte[] key, byte[] value) {
    writes.put(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return this;
  }

  public Batch remove(Store store, byte[] key) {
    writes.put(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key"), null);
    return this;
  }

  public int size() {
    return writes.size();
  }

  public Batch clear() {
    writes = new WriteBuffer(8);
    return this;
  }

  WriteBuffer writes() {
    return writes;
  }
}
