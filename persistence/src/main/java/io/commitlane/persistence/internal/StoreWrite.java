package io.commitlane.persistence.internal;

import io.commitlane.annotation.InternalApi;
import java.util.ArrayList;
import java.util.List;

/**
 * INTERNAL API. One all-or-nothing write of the plugins: puts and removes, applied only if every expected value
 * still holds when it commits (a compare-and-set over several keys). The unit of {@link PluginStore#write}.
 */
@InternalApi
public final class StoreWrite {
  /** A key and the value it must hold (null: absent). */
  public record Expectation(byte[] key, byte[] value) {}

  /** A put (value non-null) or a remove (value null). */
  public record Change(byte[] key, byte[] value) {}

  private final List<Expectation> expectations = new ArrayList<>(1);
  private final List<Change> changes = new ArrayList<>();
  private long bytes;

  public StoreWrite expect(byte[] key, byte[] value) {
    expectations.add(new Expectation(key, value));
    return this;
  }

  public StoreWrite put(byte[] key, byte[] value) {
    changes.add(new Change(key, value));
    bytes += key.length + value.length;
    return this;
  }

  public StoreWrite remove(byte[] key) {
    changes.add(new Change(key, null));
    bytes += key.length;
    return this;
  }

  public List<Expectation> expectations() {
    return expectations;
  }

  public List<Change> changes() {
    return changes;
  }

  /** Key and value bytes of the changes. */
  public long bytes() {
    return bytes;
  }

  public boolean isEmpty() {
    return changes.isEmpty();
  }
}
