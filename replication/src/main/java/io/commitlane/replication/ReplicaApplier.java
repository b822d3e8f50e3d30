package io.commitlane.replication;

import io.commitlane.storage.Batch;
import io.commitlane.storage.Database;
import io.commitlane.storage.InvalidStoreNameException;
import io.commitlane.storage.Store;
import io.commitlane.storage.internal.PrintableBytes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Validates and applies replicated commits to one replica's database, in log order, on one thread.
 *
 * <p>The invariant: after an entry is applied, the database holds its writes, the version of each
 * key it wrote, its request record, its transaction-log records and the applied position, all
 * from one RocksDB write, or none of them. Validation reads only what earlier entries wrote, so every replica reaches the same
 * outcome for the same entry, whether it applies it live, after a restart or after installing a
 * snapshot.
 */
final class ReplicaApplier {
  private final Database db;
  private long appliedTerm;
  private long appliedIndex;
  /** The timestamp of the newest log record: the next one gets a later one. */
  private long logClock;

  ReplicaApplier(Database db) {
    this.db = db;
    byte[] applied = db.internalRecords().get(ReplicaRecords.APPLIED);
    if (applied != null) {
      long[] ti = ReplicaRecords.readApplied(applied);
      appliedTerm = ti[0];
      appliedIndex = ti[1];
    }
    byte[] clock = db.internalRecords().get(ReplicaRecords.LOG_CLOCK);
    logClock = clock == null ? 0 : ReplicaRecords.readLong(clock);
  }

  /** The term of the last commit applied to the database (0 before the first). */
  long appliedTerm() {
    return appliedTerm;
  }

  /** The index of the last commit applied to the database (0 before the first). */
  long appliedIndex() {
    return appliedIndex;
  }

  /**
   * Applies the entry at {@code index}; an entry at or below what the database already holds is
   * skipped (a restart may replay it) and answered as a duplicate.
   */
  ApplyOutcome apply(long term, long index, byte[] entry) {
    if (index <= appliedIndex) {
      return new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, index, "already applied");
    }
    ApplyOutcome outcome;
    ReplicatedCommit commit;
    try {
      commit = ReplicatedCommit.decode(entry);
    } catch (MalformedEntryException e) {
      return markOnly(term, index, new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index, e.getMessage()));
    }
    if (commit.requestId() != null) {
      byte[] earlier = db.internalRecords().get(ReplicaRecords.request(commit.requestId()));
      if (earlier != null) {
        return markOnly(term, index, new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, ReplicaRecords.readLong(earlier), ""));
      }
    }
    outcome = validate(commit, index);
    if (outcome != null) {
      return markOnly(term, index, outcome);
    }
    try {
      write(term, index, commit);
    } catch (InvalidStoreNameException e) {
      return markOnly(term, index, new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index, e.getMessage()));
    }
    return ApplyOutcome.committed(index);
  }

  /** Null when nothing the commit read was written after its snapshot; else the conflict. */
  private ApplyOutcome validate(ReplicatedCommit c, long index) {
    if (c.snapshotIndex() >= index) {
      return new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index,
          "snapshot index " + c.snapshotIndex() + " is not before the entry's own index");
    }
    for (ReplicatedCommit.ReadKey r : c.readKeys()) {
      byte[] v = db.internalRecords().get(ReplicaRecords.version(r.store(), r.key()));
      if (v != null && ReplicaRecords.readLong(v) > c.snapshotIndex()) {
        return new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, index, r.store() + " key " + PrintableBytes.of(r.key()));
      }
    }
    for (ReplicatedCommit.ReadRange r : c.readRanges()) {
      long[] newer = {0};
      db.internalRecords().scan(ReplicaRecords.versionFrom(r.store(), r.from()), ReplicaRecords.versionTo(r.store(), r.to()),
          (key, value) -> {
            if (ReplicaRecords.readLong(value) > c.snapshotIndex()) {
              newer[0] = ReplicaRecords.readLong(value);
              return false;
            }
            return true;
          });
      if (newer[0] != 0) {
        return new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, index,
            r.store() + " range [" + bound(r.from()) + ", " + bound(r.to()) + ")");
      }
    }
    return expectations(c, index);
  }

  /**
   * Null when every expected key holds its expected value now, before the commit's writes; else
   * what each expected key holds. Reads only what earlier entries wrote, like the checks above.
   */
  private ApplyOutcome expectations(ReplicatedCommit c, long index) {
    if (c.expects().isEmpty()) {
      return null;
    }
    List<byte[]> actual = new ArrayList<>(c.expects().size());
    boolean hold = true;
    for (ReplicatedCommit.Expect e : c.expects()) {
      Store store = db.findStore(e.store()).orElse(null);
      byte[] now = store == null ? null : db.get(store, e.key());
      actual.add(now);
      hold &= java.util.Arrays.equals(now, e.value());
    }
    return hold ? null : new ApplyOutcome(ApplyOutcome.Kind.EXPECTATIONS, index, "", actual);
  }

  private static String bound(byte[] key) {
    return key == null ? "(open)" : PrintableBytes.of(key);
  }

  private void write(long term, long index, ReplicatedCommit c) {
    Batch batch = Batch.create();
    List<byte[]> keys = new ArrayList<>(c.writes().size() + 2);
    List<byte[]> values = new ArrayList<>(c.writes().size() + 2);
    byte[] version = ReplicaRecords.longValue(index);
    for (ReplicatedCommit.Write w : c.writes()) {
      Store store = store(w.store());
      if (w.value() == null) {
        batch.remove(store, w.key());
      } else {
        batch.put(store, w.key(), w.value());
      }
      keys.add(ReplicaRecords.version(w.store(), w.key()));
      values.add(version);
    }
    if (c.requestId() != null) {
      keys.add(ReplicaRecords.request(c.requestId()));
      values.add(version);
    }
    long clock = logClock;
    if (!c.logs().isEmpty()) {
      // Every replica computes the same timestamp from the log alone: the proposer's clock, made
      // to rise past the record before it.
      clock = Math.max(c.proposedAtMillis(), logClock + 1);
      for (ReplicatedCommit.LogAppend log : c.logs()) {
        keys.add(ReplicaRecords.change(index, log.log()));
        values.add(ReplicaLogRecord.encode(clock, log.entries()));
      }
      keys.add(ReplicaRecords.LOG_CLOCK);
      values.add(ReplicaRecords.longValue(clock));
    }
    keys.add(ReplicaRecords.APPLIED);
    values.add(ReplicaRecords.applied(term, index));
    db.writeWithInternalRecords(batch, keys, values);
    appliedTerm = term;
    appliedIndex = index;
    logClock = clock;
  }

  /**
   * Removes the log records older than {@code retention} before the newest one, measured on the
   * records' own timestamps (so a replica that was down trims what the others trimmed, whatever
   * its clock says). Returns how many it removed.
   */
  long trimLogs(Duration retention) {
    if (logClock == 0 || retention.isZero()) {
      return 0;
    }
    long cutoff = logClock - retention.toMillis();
    long[] lastOld = {0};
    long[] count = {0};
    db.internalRecords().scan(ReplicaRecords.CHANGES, ReplicaRecords.CHANGES_END, (key, value) -> {
      if (ByteBuffer.wrap(value).getLong() >= cutoff) {
        return false;
      }
      lastOld[0] = ReplicaRecords.changeIndex(key);
      count[0]++;
      return true;
    });
    if (count[0] > 0) {
      // The mark first: a crash between the two leaves records a feed may no longer read, never
      // a gap a feed would skip unseen.
      db.internalRecords().write(List.of(ReplicaRecords.TRIMMED), List.of(ReplicaRecords.longValue(lastOld[0])));
      db.internalRecords().deleteRange(ReplicaRecords.CHANGES, ReplicaRecords.changesFrom(lastOld[0] + 1));
    }
    return count[0];
  }

  /** Moves the applied position to {@code index} if it is behind (entries with nothing to write). */
  void markApplied(long term, long index) {
    if (index > appliedIndex) {
      markOnly(term, index, null);
    }
  }

  /** Records that the entry was applied without writing its data (a conflict or a refusal). */
  private ApplyOutcome markOnly(long term, long index, ApplyOutcome outcome) {
    db.writeWithInternalRecords(Batch.create(), List.of(ReplicaRecords.APPLIED), List.of(ReplicaRecords.applied(term, index)));
    appliedTerm = term;
    appliedIndex = index;
    return outcome;
  }

  /** The store a write names, created by the first commit that writes it (the same on every replica). */
  private Store store(String name) {
    Optional<Store> existing = db.findStore(name);
    if (existing.isPresent()) {
      return existing.get();
    }
    return db.createStore(name).toCompletableFuture().join();
  }
}
