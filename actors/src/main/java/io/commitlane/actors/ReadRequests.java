package io.commitlane.actors;

import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.storage.internal.PrintableBytes;
import io.commitlane.actors.internal.RangePages;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The protocol's reads ({@link Get}, {@link MultiGet}, {@link Scan}, {@link Count}), served on the
 * database actor's thread: each is one short RocksDB read, bounded by the request. A reply that
 * would not fit {@code maxReplyBytes} (a sharded database's remote frame) is refused with a clear
 * error instead of being sent to be dropped. Reads create nothing: a store that does not exist
 * reads as empty.
 */
final class ReadRequests {
  /** The byte bound of a scan page: 4 MiB of keys and values (less where a reply must fit a frame). */
  static final long PAGE_BYTES = 4L << 20;

  private final CommitlaneDatabase db;
  /** The most bytes a reply may carry: one remote frame for a sharded database, unbounded locally. */
  private final long maxReplyBytes;
  /** The byte bound of a scan page: {@link #PAGE_BYTES}, or less when a reply may carry less. */
  private final long maxPageBytes;

  ReadRequests(CommitlaneDatabase db, long maxReplyBytes) {
    this.db = db;
    this.maxReplyBytes = maxReplyBytes;
    this.maxPageBytes = Math.min(PAGE_BYTES, maxReplyBytes);
  }

  void onGet(Get g) {
    Database storage = db.storage();
    Store s = existingStore(storage, g.key().store());
    g.replyTo().tell(new Values(g.correlation(), Collections.singletonList(s == null ? null : storage.get(s, g.key().key()))));
  }

  /** Keys of one store: one RocksDB multi-get; keys of several stores: one snapshot, read key by key. */
  void onMultiGet(MultiGet g) {
    Database storage = db.storage();
    String store = g.keys().isEmpty() ? null : g.keys().get(0).store();
    if (g.keys().stream().allMatch(k -> Objects.equals(k.store(), store))) {
      Store s = existingStore(storage, store);
      List<byte[]> values = s == null ? Collections.nCopies(g.keys().size(), null)
          : storage.multiGet(s, g.keys().stream().map(Key::key).toList());
      g.replyTo().tell(fitting(new Values(g.correlation(), values)));
      return;
    }
    try (Transaction snapshot = storage.begin()) {
      List<byte[]> values = new ArrayList<>(g.keys().size());
      for (Key k : g.keys()) {
        Store s = existingStore(storage, k.store());
        values.add(s == null ? null : snapshot.getUntracked(s, k.key()));
      }
      g.replyTo().tell(fitting(new Values(g.correlation(), values)));
    }
  }

  /** One page; its size is bounded by the request and {@link #maxPageBytes}. */
  void onScan(Scan s) {
    Database storage = db.storage();
    Store store = s.range().existingStore(storage);
    if (store == null) {
      s.replyTo().tell(new Page(s.correlation(), List.of(), null, true));
      return;
    }
    KeyRange range = s.range().toKeyRange(store);
    if (s.after() != null) {
      range = RangePages.resume(range, s.after());
    }
    RangePages.Read page = RangePages.read(storage, range, s.pageSize(), maxPageBytes);
    if (page.bytes() > maxPageBytes) {
      throw new InvalidRequestException("the entry at key " + PrintableBytes.of(page.entries().get(0).key()) + " is "
          + page.bytes() + " bytes, more than a scan page may carry here (" + maxPageBytes + " bytes); read it with Get"
          + " and scan on from after it (ScanRange.fromExclusive)");
    }
    byte[] next = page.last() ? null : RangePages.continuation(page.rest(), page.entries().get(page.entries().size() - 1).key());
    s.replyTo().tell(new Page(s.correlation(), page.entries(), next, page.last()));
  }

  void onCount(Count c) {
    Database storage = db.storage();
    Store store = c.range().existingStore(storage);
    if (store == null) {
      c.replyTo().tell(new Counted(c.correlation(), 0, true));
      return;
    }
    KeyRange range = c.range().toKeyRange(store);
    long n = c.estimate() ? storage.estimateCount(range) : storage.count(range);
    c.replyTo().tell(new Counted(c.correlation(), n, !c.estimate()));
  }

  /** {@code values}, or a clear refusal when a transport would drop a reply that large (the caller would wait forever). */
  private Values fitting(Values values) {
    if (maxReplyBytes == Long.MAX_VALUE) {
      return values;
    }
    long bytes = 0;
    for (byte[] v : values.values()) {
      bytes += RangePages.ENTRY_OVERHEAD_BYTES + (v == null ? 0 : v.length);
    }
    if (bytes > maxReplyBytes) {
      throw new InvalidRequestException("the " + values.values().size() + " values read are " + bytes
          + " bytes, more than one reply may carry here (" + maxReplyBytes + " bytes, the remote frame less its margin);"
          + " read fewer keys per MultiGet");
    }
    return values;
  }

  /** The store to read, or null when it does not exist (reads create nothing). */
  static Store existingStore(Database db, String name) {
    return name == null ? db.defaultStore() : db.findStore(name).orElse(null);
  }
}
