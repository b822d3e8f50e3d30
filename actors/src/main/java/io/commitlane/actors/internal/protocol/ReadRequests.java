package io.commitlane.actors.internal.protocol;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol.Count;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.Key;
import io.commitlane.actors.ScanRange;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.storage.internal.PrintableBytes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The protocol's reads ({@link Get}, {@link MultiGet}, {@link Scan}, {@link Count}), served on the
 * database actor's thread: each is one short RocksDB read, bounded by the request. A reply that
 * cannot reach a caller on another node (larger than the remote transport's frame, {@link
 * ReplyLimit}) is refused with a clear error instead of being sent to be dropped; a local caller
 * gets any size. Reads create nothing: a store that does not exist reads as empty.
 */
public final class ReadRequests {
  /** The byte bound of a scan page: 4 MiB of keys and values (less where a reply must fit a frame). */
  public static final long PAGE_BYTES = 4L << 20;

  private final CommitlaneDatabase db;
  private final ReplyLimit replies;

  ReadRequests(CommitlaneDatabase db, ReplyLimit replies) {
    this.db = db;
    this.replies = replies;
  }

  void onGet(Get g) {
    Database storage = db.storage();
    Store s = existingStore(storage, g.key().store());
    byte[] value = s == null ? null : storage.get(s, g.key().key());
    replies.tell(g.replyTo(), new Values(g.correlation(), Collections.singletonList(value)));
  }

  /** Keys of one store: one RocksDB multi-get; keys of several stores: one snapshot, read key by key. */
  void onMultiGet(MultiGet g) {
    Database storage = db.storage();
    String store = g.keys().isEmpty() ? null : g.keys().get(0).store();
    if (g.keys().stream().allMatch(k -> Objects.equals(k.store(), store))) {
      Store s = existingStore(storage, store);
      List<byte[]> values = s == null ? Collections.nCopies(g.keys().size(), null)
          : storage.multiGet(s, g.keys().stream().map(Key::key).toList());
      replies.tell(g.replyTo(), new Values(g.correlation(), values));
      return;
    }
    try (Transaction snapshot = storage.begin()) {
      List<byte[]> values = new ArrayList<>(g.keys().size());
      for (Key k : g.keys()) {
        Store s = existingStore(storage, k.store());
        values.add(s == null ? null : snapshot.getUntracked(s, k.key()));
      }
      replies.tell(g.replyTo(), new Values(g.correlation(), values));
    }
  }

  /**
   * One page: at most the request's page size, and {@link #PAGE_BYTES} or what a reply to the
   * caller can carry. A continuation is checked against the range first: one of another range is
   * refused whatever the store holds.
   */
  void onScan(Scan s) {
    ScanContinuation from = s.after() == null ? null : ScanContinuation.decode(s.range(), s.after());
    Database storage = db.storage();
    Store store = s.range().existingStore(storage);
    if (store == null) {
      replies.tell(s.replyTo(), new Page(s.correlation(), List.of(), null, true));
      return;
    }
    KeyRange range = s.range().toKeyRange(store);
    if (from != null) {
      range = from.resume(range);
    }
    long carried = replies.bytesFor(s.replyTo());
    RangePages.Read page = RangePages.read(storage, range, s.pageSize(), Math.min(PAGE_BYTES, carried));
    if (page.bytes() > carried) {
      // One entry (a page always holds one) larger than any reply to this caller: refuse it, naming it.
      byte[] key = page.entries().get(0).key();
      s.answer(replies.refusal(s.replyTo(), "the entry at key " + PrintableBytes.of(key) + " is "
          + page.bytes() + " bytes", "To skip it, scan on from after it (ScanRange.fromExclusive(key), or to(key) in reverse)"));
      return;
    }
    byte[] next = page.last() ? null
        : ScanContinuation.encode(s.range(), page.rest().limit(), page.entries().get(page.entries().size() - 1).key());
    replies.tell(s.replyTo(), new Page(s.correlation(), page.entries(), next, page.last()));
  }

  void onCount(Count c) {
    Database storage = db.storage();
    Store store = c.range().existingStore(storage);
    if (store == null) {
      replies.tell(c.replyTo(), new Counted(c.correlation(), 0, true));
      return;
    }
    KeyRange range = c.range().toKeyRange(store);
    long n = c.estimate() ? storage.estimateCount(range) : storage.count(range);
    replies.tell(c.replyTo(), new Counted(c.correlation(), n, !c.estimate()));
  }

  /** The store to read, or null when it does not exist (reads create nothing). */
  static Store existingStore(Database db, String name) {
    return name == null ? db.defaultStore() : db.findStore(name).orElse(null);
  }
}
