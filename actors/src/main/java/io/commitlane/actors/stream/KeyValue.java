package io.commitlane.actors.stream;

import io.commitlane.storage.internal.PrintableBytes;
import java.util.Objects;

/**
 * A record to ingest: a key and a value for the default store (see {@link
 * RecordWriter#keyValues()}). The arrays are not copied: do not change them after handing them
 * over. Equality is by array identity, as for any record of arrays.
 */
public record KeyValue(byte[] key, byte[] value) {
  public KeyValue {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }

  /** Key plus value bytes: the weight ingestion batches by. */
  public long bytes() {
    return (long) key.length + value.length;
  }

  @Override
  public String toString() {
    return "KeyValue[" + PrintableBytes.of(key) + " = " + PrintableBytes.of(value) + "]";
  }
}
