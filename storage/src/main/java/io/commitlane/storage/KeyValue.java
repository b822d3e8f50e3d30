package io.commitlane.storage;

import io.commitlane.storage.internal.PrintableBytes;

/**
 * A key and its value: an entry a scan returned ({@code value} is null when the scan was {@link
 * KeyRange#keysOnly()}; the arrays belong to the caller, the scan made fresh copies), or a record
 * to ingest through a stream (whose arrays are not copied until the commit: do not change them
 * after handing them over).
 */
public record KeyValue(byte[] key, byte[] value) {
  public KeyValue {
    java.util.Objects.requireNonNull(key, "key");
  }

  /** Key plus value bytes (a keys-only entry counts its key): the weight stream ingestion batches by. */
  public long bytes() {
    return (long) key.length + (value == null ? 0 : value.length);
  }

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
