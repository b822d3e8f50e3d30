package io.commitlane.actors;

import io.commitlane.actors.internal.protocol.RequestNames;
import io.commitlane.storage.internal.PrintableBytes;

/**
 * A key in a store of a database.
 *
 * @param store the store (column family), or null for the default store
 * @param key the key bytes
 */
public record Key(String store, byte[] key) {
  public Key {
    RequestNames.store(store);
    RequestNames.key(key, "a Key");
  }

  /** A key of the default store. */
  public static Key of(byte[] key) {
    return new Key(null, key);
  }

  public static Key of(String store, byte[] key) {
    return new Key(store, key);
  }

  @Override
  public String toString() {
    return "Key[" + (store == null ? "" : store + " ") + PrintableBytes.of(key) + "]";
  }
}
