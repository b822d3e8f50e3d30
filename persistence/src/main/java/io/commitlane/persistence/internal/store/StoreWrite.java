package io.commitlane.persistence.internal.store;

import io.commitlane.annotation.InternalApi;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * INTERNAL API. One all-or-nothing write of the plugins: puts and removes, applied only if every expected value
 * still holds when it commits (a compare-and-set over several keys). The unit of {@link PluginStore#write}.
 *
 * <p><b>Commit positions.</b> A put may hold references to the write's commit positions ({@link #position()} gives
 * the next one, an ordinal within the write): 8-byte places in its key or value that the store fills in with the
 * commit's positions when it commits ({@link Stamp}). A local store fills them from a claim of {@link Positions}
 * before the commit starts; a replicated store lets every replica fill them as it applies the commit in log order.
 * Either way the write's positions are consecutive, in ordinal order, and increase in commit order.
 */
@InternalApi
public final class StoreWrite {
  /** A key and the value it must hold (null: absent). */
  public record Expectation(byte[] key, byte[] value) {}

  /** Where a put receives one of its write's positions: 8 bytes, big-endian, at {@code offset} of its key or value. */
  public record Stamp(boolean inValue, int offset, int ordinal) {}

  /** A put (value non-null) or a remove (value null); {@code stamps} are the put's position references (often none). */
  public record Change(byte[] key, byte[] value, List<Stamp> stamps) {
    public Change(byte[] key, byte[] value) {
      this(key, value, List.of());
    }
  }

  private final List<Expectation> expectations = new ArrayList<>(1);
  private final List<Change> changes = new ArrayList<>();
  private long bytes;
  private int positions;

  public StoreWrite expect(byte[] key, byte[] value) {
    expectations.add(new Expectation(key, value));
    return this;
  }

  public StoreWrite put(byte[] key, byte[] value) {
    changes.add(new Change(key, value));
    bytes += key.length + value.length;
    return this;
  }

  /** A reference to the next of this write's commit positions: its ordinal (0 for the first). */
  public int position() {
    return positions++;
  }

  /** A put whose key and value receive positions of this write at {@code stamps} (ordinals from {@link #position()}). */
  public StoreWrite put(byte[] key, byte[] value, List<Stamp> stamps) {
    for (Stamp s : stamps) {
      if (s.ordinal() < 0 || s.ordinal() >= positions) {
        throw new IllegalArgumentException("stamp ordinal " + s.ordinal() + " was not taken with position()");
      }
    }
    changes.add(new Change(key, value, List.copyOf(stamps)));
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

  /** How many commit positions the write uses (its references: ordinals 0 .. this - 1). */
  public int positions() {
    return positions;
  }

  /** The changes with every position reference filled in, the write's first position being {@code first}. */
  public List<Change> resolved(long first) {
    if (positions == 0) {
      return changes;
    }
    List<Change> out = new ArrayList<>(changes.size());
    for (Change c : changes) {
      if (c.stamps().isEmpty()) {
        out.add(c);
        continue;
      }
      byte[] key = c.key().clone();
      byte[] value = c.value().clone();
      for (Stamp s : c.stamps()) {
        ByteBuffer.wrap(s.inValue() ? value : key, s.offset(), 8).putLong(first + s.ordinal());
      }
      out.add(new Change(key, value));
    }
    return out;
  }

  /** Key and value bytes of the changes. */
  public long bytes() {
    return bytes;
  }

  public boolean isEmpty() {
    return changes.isEmpty();
  }
}
