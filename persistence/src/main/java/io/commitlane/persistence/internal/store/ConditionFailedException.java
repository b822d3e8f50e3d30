package io.commitlane.persistence.internal.store;

import io.commitlane.annotation.InternalApi;

/** INTERNAL API. A {@link StoreWrite}'s expected value did not hold at commit; nothing was written. */
@InternalApi
public final class ConditionFailedException extends RuntimeException {
  private final transient byte[] key;
  private final transient byte[] actual;

  public ConditionFailedException(byte[] key, byte[] actual) {
    super("an expected value did not hold; nothing was written", null, false, false);
    this.key = key;
    this.actual = actual;
  }

  public byte[] key() {
    return key;
  }

  /** The value the key held (null: absent). */
  public byte[] actual() {
    return actual;
  }
}
