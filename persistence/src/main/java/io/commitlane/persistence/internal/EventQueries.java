package io.commitlane.persistence.internal;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import scala.Option;

/**
 * INTERNAL API. The read journal's event queries over a {@link PluginStore}; the javadsl and scaladsl read journals
 * delegate to it. Every query is a {@link FollowSource}: pages of one range read each, backpressured.
 *
 * <ul>
 *   <li>{@code eventsByTag}: the tag index in commit-position order, below the positions watermark (see {@link
 *       Positions}); offsets are commit positions, so a query resumed from one emits exactly what followed it. Live
 *       queries wake when the watermark advances.
 *   <li>{@code eventsByPersistenceId}: the id's events by sequence number (offsets are sequence numbers); live queries
 *       wake on the id's acknowledged writes. A current query ends at the highest sequence number when it starts.
 *   <li>{@code persistenceIds}: the ids in the order their first event committed.
 * </ul>
 */
@InternalApi
public final class EventQueries {
  private final PluginStore store;
  private final EventJournal journal;
  private final int pageSize;

  public EventQueries(PluginStore store, PayloadCodec codec, int pageSize) {
    this.store = store;
    this.journal = new EventJournal(store, codec, pageSize);
    this.pageSize = pageSize;
  }

  public FollowSource<EventEnvelope> eventsByTag(String tag, Offset offset, boolean live) {
    byte[] tagBytes = Keys.utf8("tag", tag);
    long[] bound = {-1};
    FollowSource.Reader<EventEnvelope> reader = cursor -> {
      if (bound[0] < 0 || live) {
        bound[0] = store.positions().watermark(); // first the watermark, then the index: nothing below it can still appear
      }
      long from = (Long) cursor;
      List<KeyValue> page = from + 1 >= bound[0] ? List.of()
          : store.scan(Keys.tag(tagBytes, from + 1), Keys.tag(tagBytes, bound[0]), false, pageSize);
      List<EventEnvelope> out = new ArrayList<>(page.size());
      for (KeyValue kv : page) {
        byte[] eventKey = kv.value();
        byte[] value = store.get(eventKey);
        if (value == null) {
          continue; // deleted since the index was read
        }
        EventRecord e = EventRecord.decode(Keys.number(eventKey), value);
        out.add(envelope(Offset.sequence(Keys.number(kv.key())), Keys.name(eventKey), e));
      }
      long next = page.isEmpty() ? from : Keys.number(page.get(page.size() - 1).key());
      return new FollowSource.Page<>(out, next, page.size() < pageSize);
    };
    return new FollowSource<>(Offsets.after(offset), reader, store.executor(), live ? store.positions()::subscribe : null);
  }

  public FollowSource<EventEnvelope> eventsByPersistenceId(String pid, long from, long to, boolean live) {
    byte[] pidBytes = Keys.utf8("persistence id", pid);
    long[] bound = {-1};
    FollowSource.Reader<EventEnvelope> reader = cursor -> {
      long next = (Long) cursor;
      if (!live && bound[0] < 0) {
        bound[0] = Math.min(to, Highest.decode(store.get(Keys.highest(pidBytes))).sequenceNr());
      }
      long last = live ? to : bound[0];
      if (next > last) {
        return new FollowSource.Page<>(List.of(), FollowSource.END, true);
      }
      List<KeyValue> page = store.scan(Keys.event(pidBytes, next), EventJournal.upTo(pidBytes, last), false, pageSize);
      List<EventEnvelope> out = new ArrayList<>(page.size());
      for (KeyValue kv : page) {
        long seq = Keys.number(kv.key());
        out.add(envelope(Offset.sequence(seq), pid, EventRecord.decode(seq, kv.value())));
        next = seq + 1;
      }
      boolean caughtUp = page.size() < pageSize;
      return new FollowSource.Page<>(out, next > last ? FollowSource.END : next, caughtUp);
    };
    return new FollowSource<>(Math.max(1, from), reader, store.executor(),
        live ? listener -> store.signals().subscribe(pid, listener) : null);
  }

  public FollowSource<String> persistenceIds(boolean live) {
    long[] bound = {-1};
    FollowSource.Reader<String> reader = cursor -> {
      if (bound[0] < 0 || live) {
        bound[0] = store.positions().watermark();
      }
      long from = (Long) cursor;
      List<KeyValue> page = from + 1 >= bound[0] ? List.of()
          : store.scan(Keys.newId(from + 1), Keys.newId(bound[0]), false, pageSize);
      List<String> out = new ArrayList<>(page.size());
      for (KeyValue kv : page) {
        out.add(Keys.string(kv.value(), 0, kv.value().length));
      }
      long next = page.isEmpty() ? from : Keys.number(page.get(page.size() - 1).key());
      return new FollowSource.Page<>(out, next, page.size() < pageSize);
    };
    return new FollowSource<>(-1L, reader, store.executor(), live ? store.positions()::subscribe : null);
  }

  /** The highest sequence number of {@code pid}, or empty if it never had an event. */
  public CompletionStage<Optional<Long>> lastSequenceNr(String pid) {
    return CompletableFuture.supplyAsync(() -> {
      byte[] stored = store.get(Keys.highest(Keys.utf8("persistence id", pid)));
      return stored == null ? Optional.<Long>empty() : Optional.of(Highest.decode(stored).sequenceNr());
    }, store.executor());
  }

  private EventEnvelope envelope(Offset offset, String pid, EventRecord e) {
    PersistentRepr repr = journal.toRepr(pid, e);
    Option<Object> meta = repr.metadata();
    return EventEnvelope.apply(offset, pid, e.sequenceNr(), repr.payload(), e.timestamp(), meta);
  }
}
