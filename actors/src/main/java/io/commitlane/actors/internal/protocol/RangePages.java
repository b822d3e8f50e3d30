package io.commitlane.actors.internal.protocol;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.Cursor;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a range one page at a time. Each page comes from a view of its own that lives only while
 * the page is read, so nothing is held between pages and a reader may take as long as it likes
 * between them; each page is consistent, the pages together are not one snapshot (an entry
 * written behind the last key read appears in a later page, one written before it does not).
 *
 * <p>A page ends at {@code pageSize} entries or before its entries' bytes (keys, values and a
 * serializer's overhead) would pass {@code maxBytes}; it always holds at least one entry unless the range is done (so paging always
 * advances, and an entry larger than the bound is a page of its own). The
 * rest of the range is the range after the page's last key, with what is left of its limit.
 *
 * <p>INTERNAL API: the protocol's {@code Scan} and the streams' range source; not for use outside them.
 */
@InternalApi
public final class RangePages {
  /**
   * A page: its entries, their key and value bytes (above the bound only when its one entry is),
   * and the rest of the range, null when the range is done.
   */
  public record Read(List<KeyValue> entries, long bytes, KeyRange rest) {
    public boolean last() {
      return rest == null;
    }
  }

  private RangePages() {}

  public static Read read(Database db, KeyRange range, int pageSize, long maxBytes) {
    List<KeyValue> entries = new ArrayList<>(Math.min(pageSize, 256));
    long bytes = 0;
    try (Cursor c = db.scan(range)) {
      while (entries.size() < pageSize && c.hasNext()) {
        KeyValue kv = c.next();
        long size = size(kv);
        if (!entries.isEmpty() && bytes + size > maxBytes) {
          return new Read(entries, bytes, rest(range, entries)); // the entry is read again as the next page's first
        }
        entries.add(kv);
        bytes += size;
      }
      return new Read(entries, bytes, c.hasNext() ? rest(range, entries) : null);
    }
  }

  /**
   * An entry's bytes in a page: its key and value plus {@value #ENTRY_OVERHEAD_BYTES} for what a
   * serializer adds around them (CBOR field names and lengths take about 20), so that a page under
   * the bound also serializes under it.
   */
  private static long size(KeyValue kv) {
    return ENTRY_OVERHEAD_BYTES + kv.key().length + (kv.value() == null ? 0 : kv.value().length);
  }

  public static final int ENTRY_OVERHEAD_BYTES = 64;

  private static KeyRange rest(KeyRange range, List<KeyValue> returned) {
    KeyRange rest = range.after(returned.get(returned.size() - 1).key());
    if (range.limit() > 0) {
      int left = range.limit() - returned.size();
      return left <= 0 ? null : rest.limit(left);
    }
    return rest;
  }
}
