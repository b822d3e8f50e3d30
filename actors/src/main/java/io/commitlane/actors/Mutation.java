package io.commitlane.actors;

import io.commitlane.actors.internal.protocol.RequestNames;
import io.commitlane.storage.internal.PrintableBytes;

/**
 * One write of an atomic batch: a put, or a remove when {@code value} is null.
 *
 * @param store the store (column family, created on first write), or null for the default store
 * @param key the key bytes
 * @param value the new value, or null to remove the key
 */
public record Mutation(String store, byte[] key, byte[] value) {
  public Mutation {
    RequestNames.store(store);
    RequestNames.key(key, "a Mutation");
  }

  public static Mutation put(byte[] key, byte[] value) {
    return put(null, key, value);
  }

  public static Mutation put(String store, byte[] key, byte[] value) {
    if (value == null) {
      throw new InvalidRequestException("a put needs a value; use Mutation.remove to delete a key");
    }
    return new Mutation(store, key, value);
  }

  public static Mutation remove(byte[] key) {
    return new Mutation(null, key, null);
  }

  public static Mutation remove(String store, byte[] key) {
    return new Mutation(store, key, null);
  }

  @Override
  public String toString() {
    return "Mutation[" + (value == null ? "remove " : "put ") + (store == null ? "" : store + " ") + PrintableBytes.of(key) + (value == null ? "]" : " = " + PrintableBytes.of(value) + "]");
  }
}
