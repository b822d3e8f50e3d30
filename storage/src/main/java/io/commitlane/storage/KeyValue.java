package io.commitlane.storage;

import io.commitlane.storage.internal.PrintableBytes;

/**
 * One entry a scan returned. {@code value} is null when the scan was {@link KeyRange#keysOnly()}.
 * The arrays belong to the caller: the scan made fresh copies.
 */
public record KeyValue(byte[] key, byte[] value) {
  /** Equal when both keys and both values have the same bytes. */
  @Override
  public boolean equals(Object o) {
    return o instanceof KeyValue kv && java.util.Arrays.equals(key, kv.key) && java.util.Arrays.equals(value, kv.value);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Arrays.hashCode(key) + java.util.Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "KeyValue[" + PrintableBytes.of(key) + (value == null ? "" : " = " + PrintableBytes.of(value)) + "]";
  }
}
