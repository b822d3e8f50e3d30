package io.commitlane.persistence.internal.state;

import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.query.FollowSource;
import io.commitlane.persistence.internal.query.Offsets;
import io.commitlane.persistence.internal.store.ConditionFailedException;
import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.StoreWrite;
import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.RevisionConflictException;
import io.commitlane.persistence.WriteTooLargeException;
import io.commitlane.persistence.internal.plugin.PayloadCodec.Serialized;
import io.commitlane.storage.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.persistence.query.DeletedDurableState;
import org.apache.pekko.persistence.query.DurableStateChange;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.UpdatedDurableState;
import org.apache.pekko.persistence.state.exception.DeleteRevisionException;

/**
 * INTERNAL API. The durable-state store's logic over a {@link PluginStore}; the javadsl and scaladsl stores delegate
 * to it.
 *
 * <p>An upsert of revision r is one commit conditional on the stored object (revision r - 1, or absent for r = 1):
 * a stale revision fails with {@link RevisionConflictException} and changes nothing. A tagged object has one entry in
 * the change index ({@code C tag position}) per change, written in the same commit; the entry of the object's
 * previous change stays until its next change (then settled), so {@code changes} emits the newest change of each
 * object, in commit order, resumable by offset, and never passes an object by on the strength of a change a crash
 * could still take back.
 */
@InternalApi
public final class DurableStates {
  private final PluginStore store;
  private final PayloadCodec codec;
  private final int pageSize;

  public DurableStates(PluginStore store, PayloadCodec codec, int pageSize) {
    this.store = store;
    this.codec = codec;
    this.pageSize = pageSize;
  }

  /** A stored object: its value (empty when absent or deleted) and its revision (0 when never written). */
  public record Stored(Optional<Object> value, long revision) {}

  public CompletionStage<Stored> get(String persistenceId) {
    // Recovery of a durable-state entity: after the barrier, it sees every acknowledged change, wherever made.
    return store.readBarrier().thenApplyAsync(ready -> {
      StateRecord r = StateRecord.decode(store.get(Keys.state(Keys.utf8("persistence id", persistenceId))));
      if (r == null) {
        return new Stored(Optional.empty(), 0L);
      }
      return new Stored(r.deleted() ? Optional.empty() : Optional.of(codec.deserialize(r.value())), r.revision());
    }, store.executor());
  }

  public CompletionStage<Done> upsert(String persistenceId, long revision, Object value, String tag) {
    byte[] pid;
    Serialized serialized;
    try {
      pid = Keys.utf8("persistence id", persistenceId);
      if (tag != null && !tag.isEmpty()) {
        Keys.utf8("tag", tag);
      }
      if (revision < 1) {
        throw new IllegalArgumentException("revision " + revision + " of \"" + persistenceId + "\": an upsert's revision is"
            + " 1 or above (the stored revision plus 1)");
      }
      serialized = codec.serialize(value);
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
    return change(persistenceId, pid, revision, tag == null ? "" : tag, serialized, false);
  }

  /** Delete with a revision: a tombstone at {@code revision} (the stored one plus 1), seen by change queries. */
  public CompletionStage<Done> delete(String persistenceId, long revision) {
    byte[] pid;
    try {
      pid = Keys.utf8("persistence id", persistenceId);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (revision == 0) {
      return deleteWhatever(pid);
    }
    return change(persistenceId, pid, revision, null, null, true);
  }

  /** Delete whatever revision is stored, with its change index entry (no change is emitted). */
  public CompletionStage<Done> deleteWhatever(String persistenceId) {
    try {
      return deleteWhatever(Keys.utf8("persistence id", persistenceId));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletionStage<Done> deleteWhatever(byte[] pid) {
    return CompletableFuture.supplyAsync(() -> {
      byte[] key = Keys.state(pid);
      byte[] stored = store.get(key);
      StateRecord old = StateRecord.decode(stored);
      if (old == null) {
        return CompletableFuture.completedFuture(Done.getInstance());
      }
      if (!old.indexed()) {
        return store.write(new StoreWrite().expect(key, stored).remove(key)).thenApply(v -> Done.getInstance());
      }
      // The object had a change in the index: leave a record at revision 0 (read as absent) that keeps that entry as
      // stale until this removal settles, so a query waits for it rather than passing the object by.
      return afterSettled(old).thenCompose(v -> {
        StoreWrite w = new StoreWrite().expect(key, stored);
        w.put(key, new StateRecord(0, 0, System.currentTimeMillis(), "", null, old.entry()).encode(),
            List.of(new StoreWrite.Stamp(true, StateRecord.POSITION_OFFSET, w.position())));
        if (old.stale().length > 0) {
          w.remove(old.stale());
        }
        return store.write(w);
      }).thenApply(v -> Done.getInstance());
    }, store.executor()).thenCompose(s -> s);
  }

  /** Completes (on the plugin executor) once the commit of {@code old}'s newest change has settled. */
  private CompletionStage<Void> afterSettled(StateRecord old) {
    if (old == null || old.position() < 0) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> settled = store.positions().settledThrough(old.position()).toCompletableFuture();
    return settled.isDone() ? settled : settled.thenApplyAsync(v -> null, store.executor());
  }

  private CompletionStage<Done> change(String persistenceId, byte[] pid, long revision, String tag, Serialized value,
      boolean deletion) {
    return change(persistenceId, pid, revision, tag, value, deletion, false);
  }

  private CompletionStage<Done> change(String persistenceId, byte[] pid, long revision, String tag, Serialized value,
      boolean deletion, boolean afterBarrier) {
    return CompletableFuture.supplyAsync(() -> {
      byte[] key = Keys.state(pid);
      byte[] stored = store.get(key);
      StateRecord old = StateRecord.decode(stored);
      long current = old == null ? 0 : old.revision();
      if (current < revision - 1 && !afterBarrier) {
        // An older revision than the caller's may be a stale view (a replica behind its group): decide after a barrier.
        return store.readBarrier().thenCompose(ready -> change(persistenceId, pid, revision, tag, value, deletion, true));
      }
      if (current != revision - 1) {
        return CompletableFuture.<Done>failedFuture(deletion
            ? new DeleteRevisionException("cannot delete \"" + persistenceId + "\" at revision " + revision + ": the stored"
                + " revision is " + current + " (a delete's revision is the stored one plus 1); nothing was changed")
            : new RevisionConflictException(persistenceId, current, revision));
      }
      String newTag = deletion ? (old == null ? "" : old.tag()) : tag;
      if (newTag.isEmpty() && (old == null || !old.indexed())) {
        StoreWrite untagged;
        try {
          untagged = build(pid, key, stored, old, revision, newTag, value, false);
        } catch (RuntimeException e) {
          return CompletableFuture.<Done>failedFuture(e);
        }
        return store.write(untagged)
            .handle((v, e) -> result(e, persistenceId, revision, deletion)).thenCompose(r -> r);
      }
      // A change of an object waits for its previous change to settle: only then may that change's stale entry go.
      return afterSettled(old)
          .thenCompose(ready -> store.write(build(pid, key, stored, old, revision, newTag, value, true)))
          .handle((v, e) -> result(e, persistenceId, revision, deletion)).thenCompose(r -> r);
    }, store.executor()).thenCompose(s -> s);
  }

  private CompletionStage<Done> result(Throwable failure, String persistenceId, long revision, boolean deletion) {
    Throwable cause = Failures.unwrap(failure);
    if (cause == null) {
      return CompletableFuture.completedFuture(Done.getInstance());
    }
    if (cause instanceof ConditionFailedException c) {
      StateRecord now = StateRecord.decode(c.actual());
      long current = now == null ? 0 : now.revision();
      return CompletableFuture.failedFuture(deletion
          ? new DeleteRevisionException("cannot delete \"" + persistenceId + "\" at revision " + revision + ": another write"
              + " stored revision " + current + " first; nothing was changed")
          : new RevisionConflictException(persistenceId, current, revision));
    }
    return CompletableFuture.failedFuture(cause);
  }

  /** The change's write; {@code positioned}: the record (and its change index entry, when tagged) gets a position. */
  private StoreWrite build(byte[] pid, byte[] key, byte[] stored, StateRecord old, long revision, String tag, Serialized value,
      boolean positioned) {
    // The previous change's own entry stays (as this record's stale entry) until the next change of the object, so a
    // query that meets it while this change is unsettled waits for it; the entry before that one goes now.
    byte[] keep = old == null || !positioned ? StateRecord.NONE : old.entry();
    StateRecord r = new StateRecord(revision, positioned ? 0 : -1, System.currentTimeMillis(), tag, value, keep);
    StoreWrite w = new StoreWrite().expect(key, stored);
    if (positioned) {
      // The record keeps its own position, so its change index entry can be found (and removed) by the next change.
      int at = w.position();
      w.put(key, r.encode(), List.of(new StoreWrite.Stamp(true, StateRecord.POSITION_OFFSET, at)));
      if (!tag.isEmpty()) {
        byte[] change = Keys.change(Keys.utf8("tag", tag), 0);
        w.put(change, pid, List.of(new StoreWrite.Stamp(false, change.length - 8, at)));
      }
    } else {
      w.put(key, r.encode());
    }
    if (old != null && old.stale().length > 0) {
      w.remove(old.stale());
    }
    if (w.bytes() > store.maxWriteBytes()) {
      throw new WriteTooLargeException("the durable state of \"" + Keys.string(pid, 0, pid.length) + "\" takes " + w.bytes()
          + " bytes, more than the largest commit of " + store.describe() + " (" + store.maxWriteBytes() + " bytes); nothing"
          + " was written. Store a smaller state" + store.largerWrites());
    }
    return w;
  }

  // ---- changes by tag -------------------------------------------------------------------------

  /**
   * The changes of the objects tagged {@code tag} after {@code offset}: every change index entry below the commit-position
   * watermark (the bound of a current query, read when it starts, after the store's read barrier, or the live
   * watermark), each the newest change of its object at the time it is read.
   */
  public FollowSource<DurableStateChange<Object>> changes(String tag, Offset offset, boolean live) {
    byte[] tagBytes = Keys.utf8("tag", tag);
    long after = Offsets.after(offset);
    Executor executor = store.executor();
    // Each run fixes its own bound; a current run after the read barrier (every change acknowledged before it).
    return new FollowSource<>(after, () -> {
      long[] bound = {-1};
      return cursor -> {
        long settled = store.positions().watermark(); // read before the index: every position below it is settled
        if (bound[0] < 0 || live) {
          bound[0] = settled;
        }
        long from = (Long) cursor;
        List<KeyValue> page = from + 1 >= bound[0] ? List.of()
            : store.scan(Keys.change(tagBytes, from + 1), Keys.change(tagBytes, bound[0]), false, pageSize);
        List<DurableStateChange<Object>> out = new ArrayList<>(page.size());
        for (KeyValue kv : page) {
          long position = Keys.number(kv.key());
          String pid = Keys.string(kv.value(), 0, kv.value().length);
          StateRecord r = StateRecord.decode(store.get(Keys.state(kv.value())));
          if (r != null && r.position() != position && r.position() >= settled) {
            // Changed again by a commit not settled yet, which a crash can still take back: passing this entry by now
            // would let a consumer save an offset beyond the change that is then the object's state. Wait for it.
            return new FollowSource.Page<>(out, position - 1, true, true);
          }
          if (r == null || r.position() != position) {
            continue; // changed again since, and settled: its newer entry comes later (or it left this tag)
          }
          Offset o = Offset.sequence(position);
          out.add(r.deleted() ? new DeletedDurableState<>(pid, r.revision(), o, r.timestamp())
              : new UpdatedDurableState<>(pid, r.revision(), codec.deserialize(r.value()), o, r.timestamp()));
        }
        long next = page.isEmpty() ? from : Keys.number(page.get(page.size() - 1).key());
        return new FollowSource.Page<>(out, next, page.size() < pageSize);
      };
    }, executor, store.positions()::subscribe, live, live ? null : store::readBarrier);
  }
}
