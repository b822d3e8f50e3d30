package io.commitlane.actors;

import io.commitlane.actors.internal.protocol.RequestNames;
import io.commitlane.storage.internal.PrintableBytes;

/**
 * What a conditional write expects a key to hold when the database runs it: a value, or absence
 * when {@code value} is null. The database reads the key inside the write's transaction, so a
 * change between that read and the write is caught by optimistic validation.
 *
 * @param store the store, or null for the default store
 * @param key the key bytes
 * @param value the expected value, or null for "absent"
 */
public record Expectation(String store, byte[] key, byte[] value) {
  public Expectation {
    RequestNames.store(store);
    RequestNames.key(key, "an Expectation");
  }

  public static Expectation value(byte[] key, byte[] value) {
    return new Expectation(null, key, value);
  }

  public static Expectation value(String store, byte[] key, byte[] value) {
    return new Expectation(store, key, value);
  }

  public static Expectation absent(byte[] key) {
    return new Expectation(null, key, null);
  }

  public static Expectation absent(String store, byte[] key) {
    return new Expectation(store, key, null);
  }

  @Override
  public String toString() {
    return "Expectation[" + (store == null ? "" : store + " ") + PrintableBytes.of(key) + (value == null ? " absent]" : " = " + PrintableBytes.of(value) + "]");
  }
}
