package io.commitlane.persistence.internal.journal;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.persistence.CommitlaneJournal;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.store.ConditionFailedException;
import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.StoreWrite;
import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.InvalidNameException;
import io.commitlane.persistence.InvalidSequenceNumberException;
import io.commitlane.persistence.WriteTooLargeException;
import io.commitlane.persistence.WriterConflictException;
import io.commitlane.persistence.internal.plugin.PayloadCodec.Serialized;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.Tagged;
import scala.jdk.javaapi.CollectionConverters;

/**
 * INTERNAL API. The journal's logic over a {@link PluginStore}; {@code CommitlaneJournal} is its Pekko actor.
 *
 * <p><b>Writes.</b> One {@link AtomicWrite} is one conditional commit: its events ({@code E}), the id's new highest
 * ({@code H}, expected to hold what was read), a tag index entry per tag at the event's commit position ({@code T})
 * and, for a new id, its {@code N} entry: all or nothing. Atomic writes of different ids are committed concurrently
 * (the database groups them into shared RocksDB writes); writes and deletes of one id are chained, each started when
 * the one before it completed, so the condition on {@code H} never fails between them. Nothing waits on a thread.
 *
 * <p><b>Rejections</b> (Pekko's {@code onPersistRejected}, the journal goes on) are decided before anything is
 * written: a payload its serializer refuses, an id or tag that cannot be stored, sequence numbers Pekko never sends,
 * a write larger than one commit. A write starting at or below the stored highest fails with {@link
 * WriterConflictException}: another writer was there.
 */
@InternalApi
public final class EventJournal {
  private final PluginStore store;
  private final PayloadCodec codec;
  /** The last operation started per persistence id; the next one of that id starts when it completes. */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> tails = new ConcurrentHashMap<>();
  private final int pageSize;

  public EventJournal(PluginStore store, PayloadCodec codec, int pageSize) {
    this.store = store;
    this.codec = codec;
    this.pageSize = pageSize;
  }

  /** An atomic write checked and serialized (each event encoded once), waiting for its commit positions. */
  private record Prepared(String pid, byte[] pidBytes, long first, long last, List<EventRecord> events, List<byte[]> encoded,
      int tagged) {}

  /**
   * The {@code H} value this journal last committed per id: saves the read before a write of an id this journal
   * wrote before. The commit's condition is what decides; a stale entry only costs a retry that reads the store.
   * Bounded: cleared when it reaches {@value #HIGHEST_CACHE_ENTRIES} ids.
   */
  private final ConcurrentHashMap<String, byte[]> highestWritten = new ConcurrentHashMap<>();
  private static final int HIGHEST_CACHE_ENTRIES = 100_000;

  /**
   * Write {@code writes}; the stage gives one entry per write, empty for stored and the cause for rejected, or fails
   * if a write failed.
   */
  public CompletionStage<List<Optional<Exception>>> write(Iterable<AtomicWrite> writes) {
    List<CompletableFuture<Optional<Exception>>> results = new ArrayList<>();
    for (AtomicWrite aw : writes) {
      Prepared p;
      try {
        p = prepare(aw);
      } catch (Exception rejected) {
        results.add(CompletableFuture.completedFuture(Optional.of(rejected)));
        continue;
      }
      results.add(chain(p.pid(), () -> commit(p, 1)).thenApply(v -> {
        store.signals().written(p.pid());
        return Optional.<Exception>empty();
      }));
    }
    return CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
      List<Optional<Exception>> out = new ArrayList<>(results.size());
      results.forEach(r -> out.add(r.join()));
      return out;
    });
  }

  private Prepared prepare(AtomicWrite aw) throws Exception {
    String pid = aw.persistenceId();
    byte[] pidBytes = Keys.utf8("persistence id", pid);
    List<PersistentRepr> reprs = CollectionConverters.asJava(aw.payload());
    long first = aw.lowestSequenceNr();
    long last = aw.highestSequenceNr();
    if (first < 1 || last - first + 1 != reprs.size()) {
      throw new InvalidSequenceNumberException("an atomic write of \"" + pid + "\" holds sequence numbers " + first + ".."
          + last + " for " + reprs.size() + " events: they must be consecutive and start at 1 or above; nothing was written");
    }
    long now = System.currentTimeMillis();
    List<EventRecord> events = new ArrayList<>(reprs.size());
    List<byte[]> encoded = new ArrayList<>(reprs.size());
    long bytes = 0;
    int tagged = 0;
    long expected = first;
    for (PersistentRepr repr : reprs) {
      if (!pid.equals(repr.persistenceId()) || repr.sequenceNr() != expected++) {
        throw new InvalidSequenceNumberException("an atomic write of \"" + pid + "\" holds event " + repr.sequenceNr()
            + " of \"" + repr.persistenceId() + "\" out of order; nothing was written");
      }
      Object payload = repr.payload();
      List<String> tags = List.of();
      if (payload instanceof Tagged t) {
        payload = t.payload();
        tags = new ArrayList<>(CollectionConverters.asJava(t.tags()));
        java.util.Collections.sort(tags);
        for (String tag : tags) {
          Keys.utf8("tag", tag);
        }
      }
      Serialized serialized = codec.serialize(payload);
      Serialized metadata = repr.metadata().isDefined() ? codec.serialize(repr.metadata().get()) : null;
      long timestamp = repr.timestamp() != 0 ? repr.timestamp() : now;
      EventRecord e = new EventRecord(repr.sequenceNr(), timestamp, -1, repr.writerUuid(), repr.manifest(), serialized,
          tags, metadata);
      byte[] record = e.encode();
      bytes += record.length + pidBytes.length + 16L + (tags.isEmpty() ? 0 : tags.size() * (24L + pidBytes.length));
      tagged += tags.isEmpty() ? 0 : 1;
      events.add(e);
      encoded.add(record);
    }
    if (bytes > store.maxWriteBytes()) {
      throw new WriteTooLargeException("events " + first + ".." + last + " of \"" + pid + "\" take " + bytes + " bytes, more"
          + " than the largest commit of " + store.describe() + " (" + store.maxWriteBytes() + " bytes); nothing was written."
          + " Persist smaller events" + store.largerWrites());
    }
    return new Prepared(pid, pidBytes, first, last, events, encoded, tagged);
  }

  /** Run {@code op} after every earlier operation on {@code pid} completed. */
  private CompletableFuture<Void> chain(String pid, Supplier<CompletionStage<Void>> op) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> previous = tails.put(pid, mine);
    CompletableFuture<Void> result = new CompletableFuture<>();
    Runnable start = () -> {
      CompletionStage<Void> done;
      try {
        done = op.get();
      } catch (RuntimeException e) {
        done = CompletableFuture.failedFuture(e);
      }
      done.whenComplete((v, e) -> {
        tails.remove(pid, mine);
        mine.complete(null);
        if (e == null) {
          result.complete(null);
        } else {
          result.completeExceptionally(unwrap(e));
        }
      });
    };
    if (previous == null || previous.isDone()) {
      start.run();
    } else {
      previous.whenCompleteAsync((v, e) -> start.run(), store.executor());
    }
    return result;
  }

  private CompletionStage<Void> commit(Prepared p, int attempt) {
    byte[] cached = attempt == 1 ? highestWritten.get(p.pid()) : null;
    byte[] stored = cached != null ? cached : store.get(Keys.highest(p.pidBytes()));
    Highest highest = Highest.decode(stored);
    if (p.first() <= highest.sequenceNr()) {
      highestWritten.remove(p.pid());
      return cached != null ? commit(p, attempt + 1)
          : CompletableFuture.failedFuture(new WriterConflictException(p.pid(), highest.sequenceNr(), p.first()));
    }
    byte[] written = new Highest(p.last(), highest.deletedTo()).encode();
    CompletionStage<Void> done = store.write(build(p, stored, written));
    return done.whenComplete((v, e) -> {
      if (e == null) {
        if (highestWritten.size() >= HIGHEST_CACHE_ENTRIES) {
          highestWritten.clear();
        }
        highestWritten.put(p.pid(), written);
      } else {
        highestWritten.remove(p.pid());
      }
    }).exceptionallyCompose(e -> retry(p, attempt, e));
  }

  private CompletionStage<Void> retry(Prepared p, int attempt, Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ConditionFailedException && attempt < 3) {
      // The id changed since it was read: read it again; the sequence check then names the other writer.
      return CompletableFuture.supplyAsync(() -> commit(p, attempt + 1), store.executor()).thenCompose(s -> s);
    }
    return CompletableFuture.failedFuture(cause);
  }

  /** The write of {@code p}: its {@code N} and {@code T} keys and events' positions are filled in by the store. */
  private StoreWrite build(Prepared p, byte[] stored, byte[] written) {
    StoreWrite w = new StoreWrite().expect(Keys.highest(p.pidBytes()), stored);
    if (stored == null) {
      byte[] newId = Keys.newId(0);
      w.put(newId, p.pidBytes(), List.of(new StoreWrite.Stamp(false, newId.length - 8, w.position())));
    }
    for (int i = 0; i < p.events().size(); i++) {
      EventRecord e = p.events().get(i);
      byte[] record = p.encoded().get(i);
      byte[] key = Keys.event(p.pidBytes(), e.sequenceNr());
      if (e.tags().isEmpty()) {
        w.put(key, record);
        continue;
      }
      int at = w.position();
      byte[] entry = tagEntry(p.pidBytes(), e.sequenceNr());
      for (String tag : e.tags()) {
        byte[] tagKey = Keys.tag(Keys.utf8("tag", tag), 0);
        w.put(tagKey, entry, List.of(new StoreWrite.Stamp(false, tagKey.length - 8, at)));
      }
      w.put(key, record, List.of(new StoreWrite.Stamp(true, EventRecord.POSITION_OFFSET, at)));
    }
    w.put(Keys.highest(p.pidBytes()), written);
    return w;
  }

  /** A tag index entry's value: the event's key (persistence id and sequence number). */
  static byte[] tagEntry(byte[] pid, long sequenceNr) {
    return Keys.event(pid, sequenceNr);
  }

  // ---- reads ----------------------------------------------------------------------------------

  /** The highest sequence number of {@code pid} (0 if it has none); survives deleting every event. */
  public CompletionStage<Long> highestSequenceNr(String pid) {
    // Recovery reads it first: after the barrier, the events it then replays are as current as it is.
    return store.readBarrier().thenApplyAsync(v -> Highest.decode(store.get(Keys.highest(Keys.utf8("persistence id", pid))))
        .sequenceNr(), store.executor());
  }

  /**
   * Replay events {@code from..to} (inclusive) of {@code pid}, at most {@code max}, to {@code replay} in order. A page
   * is read (range read, decoding, deserialization) on the plugin dispatcher while the page before it is handed to
   * Pekko: the two overlap, and the hand-over never waits for the store unless the store is the slower.
   */
  public CompletionStage<Void> replay(String pid, long from, long to, long max, Consumer<PersistentRepr> replay) {
    PayloadCodec.Reuse strings = new PayloadCodec.Reuse();
    long first = Math.max(from, 1);
    if (max <= 0 || first > to) {
      return CompletableFuture.completedFuture(null);
    }
    // Async: a first page read before this line attaches would otherwise be handed over on the caller's thread (the
    // journal actor's), holding it for the whole replay.
    return CompletableFuture.supplyAsync(() -> readPage(pid, first, to, Math.min(max, pageSize), strings), store.executor())
        .thenComposeAsync(page -> deliver(page, pid, to, max, replay, strings), store.executor());
  }

  /** Events of one replay page, deserialized; {@code full} when the page held all it asked for. */
  private record ReplayPage(List<PersistentRepr> events, boolean full, long last) {}

  private ReplayPage readPage(String pid, long next, long to, long want, PayloadCodec.Reuse strings) {
    byte[] pidBytes = Keys.utf8("persistence id", pid);
    List<KeyValue> kvs = store.scan(Keys.event(pidBytes, next), upTo(pidBytes, to), false, (int) want);
    List<PersistentRepr> events = new ArrayList<>(kvs.size());
    // one transport-information scope for the page, not one per event
    codec.deserializing(() -> {
      for (KeyValue kv : kvs) {
        events.add(toRepr(pid, EventRecord.decode(Keys.number(kv.key()), kv.value(), strings)));
      }
      return null;
    });
    long last = kvs.isEmpty() ? next - 1 : Keys.number(kvs.get(kvs.size() - 1).key());
    return new ReplayPage(events, kvs.size() == want, last);
  }

  /**
   * Hand {@code page} over, the read of the next one started before; then the next, in this thread while its read is
   * done already, else when it completes (a loop, not a recursion, whatever the number of pages).
   */
  private CompletableFuture<Void> deliver(ReplayPage page, String pid, long to, long left, Consumer<PersistentRepr> replay,
      PayloadCodec.Reuse strings) {
    ReplayPage current = page;
    long remaining = left;
    while (true) {
      remaining -= current.events().size();
      long want = Math.min(remaining, pageSize);
      long next = current.last() + 1;
      CompletableFuture<ReplayPage> ahead = current.full() && remaining > 0 && next <= to
          ? CompletableFuture.supplyAsync(() -> readPage(pid, next, to, want, strings), store.executor()) : null;
      current.events().forEach(replay);
      if (ahead == null) {
        return CompletableFuture.completedFuture(null);
      }
      if (!ahead.isDone() || ahead.isCompletedExceptionally()) {
        long r = remaining;
        return ahead.thenComposeAsync(p -> deliver(p, pid, to, r, replay, strings), store.executor());
      }
      current = ahead.join();
    }
  }

  /** The first key after event {@code to} of {@code pid}. */
  public static byte[] upTo(byte[] pidBytes, long to) {
    return to == Long.MAX_VALUE ? Keys.after(Keys.prefix(Keys.EVENT, pidBytes)) : Keys.event(pidBytes, to + 1);
  }

  public PersistentRepr toRepr(String pid, EventRecord e) {
    Object payload = codec.deserialize(e.payload());
    PersistentRepr repr = PersistentRepr.apply(payload, e.sequenceNr(), pid, e.adapterManifest(), false, null, e.writerUuid())
        .withTimestamp(e.timestamp());
    return e.metadata() == null ? repr : repr.withMetadata(codec.deserialize(e.metadata()));
  }

  // ---- deletes --------------------------------------------------------------------------------

  /**
   * Delete the events of {@code pid} up to {@code to} (inclusive), a page per commit from the oldest, with their tag
   * index entries. The highest sequence number stays (Pekko's contract).
   */
  public CompletionStage<Void> delete(String pid, long to) {
    byte[] pidBytes;
    try {
      pidBytes = Keys.utf8("persistence id", pid);
    } catch (InvalidNameException e) {
      return CompletableFuture.failedFuture(e);
    }
    return chain(pid, () -> {
      highestWritten.remove(pid); // the delete moves H's deletedTo
      // After the barrier: the highest sequence number it reads is current, wherever the events were written.
      return store.readBarrier().thenApplyAsync(v -> deletePage(pidBytes, to), store.executor()).thenCompose(s -> s);
    });
  }

  private CompletionStage<Void> deletePage(byte[] pidBytes, long to) {
    byte[] highestKey = Keys.highest(pidBytes);
    byte[] stored = store.get(highestKey);
    Highest highest = Highest.decode(stored);
    long target = Math.min(to, highest.sequenceNr());
    if (target <= highest.deletedTo()) {
      return CompletableFuture.completedFuture(null);
    }
    List<KeyValue> page = store.scan(Keys.event(pidBytes, highest.deletedTo() + 1), upTo(pidBytes, target), false, pageSize);
    long deletedTo = page.size() < pageSize ? target : Keys.number(page.get(page.size() - 1).key());
    StoreWrite w = new StoreWrite().expect(highestKey, stored);
    for (KeyValue kv : page) {
      EventRecord e = EventRecord.decode(Keys.number(kv.key()), kv.value());
      for (String tag : e.tags()) {
        w.remove(Keys.tag(Keys.utf8("tag", tag), e.position()));
      }
      w.remove(kv.key());
    }
    w.put(highestKey, new Highest(highest.sequenceNr(), deletedTo).encode());
    return store.write(w).thenComposeAsync(v -> deletedTo < target ? deletePage(pidBytes, to)
        : CompletableFuture.completedFuture(null), store.executor());
  }

}
