package io.commitlane.persistence.internal.query;

import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.journal.EventRecord;
import io.commitlane.persistence.internal.journal.Highest;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.Positions;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.journal.EventAdapter;
import org.apache.pekko.persistence.journal.EventAdapters;
import org.apache.pekko.persistence.journal.IdentityEventAdapter$;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

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
 *
 * <p>A current query (and {@link #lastSequenceNr}) fixes its bound after the store's {@link PluginStore#readBarrier()},
 * once per run: on a replicated store it then sees every write acknowledged before it ran, on any node (a follower's
 * replica may not have applied the leader's last commits yet); on a local store the barrier costs nothing.
 */
@InternalApi
public final class EventQueries {
  private final PluginStore store;
  private final EventJournal journal;
  private final int pageSize;

  private final EventAdapters adapters;

  public EventQueries(PluginStore store, PayloadCodec codec, int pageSize, EventAdapters adapters) {
    this.store = store;
    this.journal = new EventJournal(store, codec, pageSize);
    this.pageSize = pageSize;
    this.adapters = adapters;
  }

  public FollowSource<EventEnvelope> eventsByTag(String tag, Offset offset, boolean live) {
    byte[] tagBytes = Keys.utf8("tag", tag);
    return source(Offsets.after(offset), live, live ? store.positions()::subscribe : null, () -> {
      long[] bound = {-1};
      return cursor -> {
        if (bound[0] < 0 || live) {
          // First the watermark, then the index: nothing below it can still appear.
          bound[0] = store.positions().watermark();
        }
        long from = (Long) cursor;
        List<KeyValue> page = from + 1 >= bound[0] ? List.of()
            : store.scan(Keys.tag(tagBytes, from + 1), Keys.tag(tagBytes, bound[0]), false, pageSize);
        List<EventEnvelope> out = new ArrayList<>(page.size());
        List<byte[]> eventKeys = new ArrayList<>(page.size());
        page.forEach(kv -> eventKeys.add(kv.value()));
        List<byte[]> values = page.isEmpty() ? List.of() : store.multiGet(eventKeys);  // one batched read per page
        for (int i = 0; i < page.size(); i++) {
          byte[] eventKey = eventKeys.get(i);
          byte[] value = values.get(i);
          if (value == null) {
            continue; // deleted since the index was read
          }
          EventRecord e = EventRecord.decode(Keys.number(eventKey), value);
          envelopes(Offset.sequence(Keys.number(page.get(i).key())), Keys.name(eventKey), e, out);
        }
        long next = page.isEmpty() ? from : Keys.number(page.get(page.size() - 1).key());
        return new FollowSource.Page<>(out, next, page.size() < pageSize);
      };
    });
  }

  public FollowSource<EventEnvelope> eventsByPersistenceId(String pid, long from, long to, boolean live) {
    byte[] pidBytes = Keys.utf8("persistence id", pid);
    return source(Math.max(1, from), live, live ? listener -> store.signals().subscribe(pid, listener) : null, () -> {
      long[] bound = {-1};
      return cursor -> {
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
          envelopes(Offset.sequence(seq), pid, EventRecord.decode(seq, kv.value()), out);
          next = seq + 1;
        }
        boolean caughtUp = page.size() < pageSize;
        return new FollowSource.Page<>(out, next > last ? FollowSource.END : next, caughtUp);
      };
    });
  }

  public FollowSource<String> persistenceIds(boolean live) {
    return source(-1L, live, live ? store.positions()::subscribe : null, () -> {
      long[] bound = {-1};
      return cursor -> {
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
    });
  }

  /**
   * A query's source: a current one fixes its bound after the store's read barrier, so it sees every write
   * acknowledged before it ran; a live one starts from what this node has and follows it, without one.
   */
  private <T> FollowSource<T> source(Object start, boolean live, Function<Runnable, Runnable> subscribe,
      Supplier<FollowSource.Reader<T>> readers) {
    return new FollowSource<>(start, readers, store.executor(), subscribe, live, live ? null : store::readBarrier);
  }

  /** The highest sequence number of {@code pid}, or empty if it never had an event. */
  public CompletionStage<Optional<Long>> lastSequenceNr(String pid) {
    byte[] key;
    try {
      key = Keys.highest(Keys.utf8("persistence id", pid));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return store.readBarrier().thenApplyAsync(ready -> {
      byte[] stored = store.get(key);
      return stored == null ? Optional.<Long>empty() : Optional.of(Highest.decode(stored).sequenceNr());
    }, store.executor());
  }

  /** The envelopes of one stored event: one, or as many as the journal's event adapter makes of it (same offset). */
  private void envelopes(Offset offset, String pid, EventRecord e, List<EventEnvelope> out) {
    PersistentRepr repr = journal.toRepr(pid, e);
    Option<Object> meta = repr.metadata();
    Object payload = repr.payload();
    EventAdapter adapter = adapters == null ? null : adapters.get(payload.getClass());
    if (adapter == null || adapter instanceof IdentityEventAdapter$) {
      out.add(EventEnvelope.apply(offset, pid, e.sequenceNr(), payload, e.timestamp(), meta));
      return;
    }
    for (Object event : CollectionConverters.asJava(adapter.fromJournal(payload, e.adapterManifest()).events())) {
      out.add(EventEnvelope.apply(offset, pid, e.sequenceNr(), event, e.timestamp(), meta));
    }
  }
}
