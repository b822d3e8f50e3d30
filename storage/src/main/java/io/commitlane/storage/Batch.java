package io.commitlane.storage;

import io.commitlane.storage.internal.commit.WriteBuffer;
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

  /** Buffer a put; {@code key} and {@code value} are copied (later changes to them change nothing here). */
  public Batch put(Store store, byte[] key, byte[] value) {
    writes.put(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key").clone(),
        Objects.requireNonNull(value, "value").clone());
    return this;
  }

  /** Buffer a removal; {@code key} is copied. */
  public Batch remove(Store store, byte[] key) {
    writes.put(Objects.requireNonNull(store, "store"), Objects.requireNonNull(key, "key").clone(), null);
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
