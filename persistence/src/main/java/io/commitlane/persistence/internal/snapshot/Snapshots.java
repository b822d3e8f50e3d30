package io.commitlane.persistence.internal.snapshot;

import io.commitlane.persistence.CommitlaneSnapshotStore;
import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.store.Keys;
import io.commitlane.persistence.internal.store.PluginStore;
import io.commitlane.persistence.internal.store.StoreWrite;
import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.WriteTooLargeException;
import io.commitlane.storage.KeyValue;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.persistence.SelectedSnapshot;
import org.apache.pekko.persistence.SnapshotMetadata;
import org.apache.pekko.persistence.SnapshotSelectionCriteria;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * INTERNAL API. The snapshot store's logic over a {@link PluginStore}; {@code CommitlaneSnapshotStore} is its Pekko
 * actor. Snapshots are keyed by (persistence id, sequence number), so a load is one reverse range read from the
 * criteria's highest sequence number down, newest first. A snapshot that no longer deserializes (its class changed)
 * is skipped with a warning and the next older one is tried, as Pekko's own snapshot store does, up to {@value
 * #LOAD_ATTEMPTS} of them; then the load fails with the last error.
 */
@InternalApi
public final class Snapshots {
  private static final Logger LOG = LoggerFactory.getLogger(Snapshots.class);
  static final int LOAD_ATTEMPTS = 3;

  private final PluginStore store;
  private final PayloadCodec codec;
  private final int pageSize;

  public Snapshots(PluginStore store, PayloadCodec codec, int pageSize) {
    this.store = store;
    this.codec = codec;
    this.pageSize = pageSize;
  }

  public CompletionStage<Void> save(SnapshotMetadata metadata, Object snapshot) {
    StoreWrite w;
    try {
      byte[] pid = Keys.utf8("persistence id", metadata.persistenceId());
      SnapshotRecord r = new SnapshotRecord(metadata.timestamp(), codec.serialize(snapshot),
          metadata.metadata().isDefined() ? codec.serialize(metadata.metadata().get()) : null);
      w = new StoreWrite().put(Keys.snapshot(pid, metadata.sequenceNr()), r.encode());
      if (w.bytes() > store.maxWriteBytes()) {
        throw new WriteTooLargeException("the snapshot " + metadata.sequenceNr() + " of \"" + metadata.persistenceId()
            + "\" takes " + w.bytes() + " bytes, more than the largest commit of " + store.describe() + " ("
            + store.maxWriteBytes() + " bytes); nothing was written. Save a smaller snapshot" + store.largerWrites());
      }
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
    return store.write(w);
  }

  public CompletionStage<Optional<SelectedSnapshot>> load(String persistenceId, SnapshotSelectionCriteria criteria) {
    // Recovery starts here: after the barrier, it sees every snapshot saved before, wherever saved.
    return store.readBarrier().thenApplyAsync(ready -> {
      byte[] pid = Keys.utf8("persistence id", persistenceId);
      if (criteria.maxSequenceNr() < criteria.minSequenceNr() || criteria.maxSequenceNr() < 0) {
        return Optional.<SelectedSnapshot>empty();
      }
      byte[] from = Keys.snapshot(pid, Math.max(0, criteria.minSequenceNr()));
      byte[] to = criteria.maxSequenceNr() == Long.MAX_VALUE ? Keys.after(Keys.prefix(Keys.SNAPSHOT, pid))
          : Keys.snapshot(pid, criteria.maxSequenceNr() + 1);
      RuntimeException last = null;
      int attempts = 0;
      while (true) {
        List<KeyValue> page = store.scan(from, to, true, pageSize);
        for (KeyValue kv : page) {
          SnapshotRecord r = SnapshotRecord.decode(kv.value());
          if (r.timestamp() > criteria.maxTimestamp() || r.timestamp() < criteria.minTimestamp()) {
            continue;
          }
          long seq = Keys.number(kv.key());
          try {
            Object snapshot = codec.deserialize(r.snapshot());
            Option<Object> meta = r.metadata() == null ? Option.empty() : Option.apply(codec.deserialize(r.metadata()));
            return Optional.of(SelectedSnapshot.create(SnapshotMetadata.apply(persistenceId, seq, r.timestamp(), meta), snapshot));
          } catch (RuntimeException e) {
            last = e;
            LOG.warn("snapshot {} of \"{}\" could not be deserialized ({}); trying an older one", seq, persistenceId, e.toString());
            if (++attempts >= LOAD_ATTEMPTS) {
              throw e;
            }
          }
        }
        if (page.size() < pageSize) {
          if (last != null) {
            throw last;
          }
          return Optional.<SelectedSnapshot>empty();
        }
        to = page.get(page.size() - 1).key();
      }
    }, store.executor());
  }

  /** Delete the snapshot at {@code metadata}'s sequence number (only if its timestamp matches, unless that is 0). */
  public CompletionStage<Void> delete(SnapshotMetadata metadata) {
    // Deletes read what they delete: after the barrier, they see every snapshot saved before, wherever saved.
    return store.readBarrier().thenApplyAsync(ready -> {
      byte[] key = Keys.snapshot(Keys.utf8("persistence id", metadata.persistenceId()), metadata.sequenceNr());
      byte[] value = store.get(key);
      if (value == null || (metadata.timestamp() != 0 && SnapshotRecord.timestampOf(value) != metadata.timestamp())) {
        return CompletableFuture.<Void>completedFuture(null);
      }
      return store.write(new StoreWrite().remove(key));
    }, store.executor()).thenCompose(s -> s);
  }

  /** Delete every snapshot of {@code persistenceId} that {@code criteria} selects, a page per commit. */
  public CompletionStage<Void> delete(String persistenceId, SnapshotSelectionCriteria criteria) {
    return store.readBarrier().thenApplyAsync(ready -> deletePage(persistenceId, criteria), store.executor())
        .thenCompose(s -> s);
  }

  private CompletionStage<Void> deletePage(String persistenceId, SnapshotSelectionCriteria criteria) {
    byte[] pid = Keys.utf8("persistence id", persistenceId);
    if (criteria.maxSequenceNr() < criteria.minSequenceNr() || criteria.maxSequenceNr() < 0) {
      return CompletableFuture.completedFuture(null);
    }
    byte[] from = Keys.snapshot(pid, Math.max(0, criteria.minSequenceNr()));
    byte[] to = criteria.maxSequenceNr() == Long.MAX_VALUE ? Keys.after(Keys.prefix(Keys.SNAPSHOT, pid))
        : Keys.snapshot(pid, criteria.maxSequenceNr() + 1);
    StoreWrite w = new StoreWrite();
    byte[] next = from;
    while (true) {
      List<KeyValue> page = store.scan(next, to, false, pageSize);
      for (KeyValue kv : page) {
        long ts = SnapshotRecord.timestampOf(kv.value());
        if (ts <= criteria.maxTimestamp() && ts >= criteria.minTimestamp()) {
          w.remove(kv.key());
        }
      }
      if (page.size() < pageSize) {
        break;
      }
      next = Keys.after(page.get(page.size() - 1).key());
    }
    return w.isEmpty() ? CompletableFuture.completedFuture(null) : store.write(w);
  }
}
