package io.commitlane.replication.internal.apply;

import io.commitlane.replication.InvalidReplicaRequestException;
import io.commitlane.replication.LogPositions;
import io.commitlane.replication.MalformedEntryException;
import io.commitlane.replication.ReplicaLogRecord;
import io.commitlane.replication.internal.entry.CommitBatch;
import io.commitlane.replication.internal.entry.ReplicaRecords;
import io.commitlane.replication.internal.entry.ReplicatedCommit;
import io.commitlane.storage.Batch;
import io.commitlane.storage.Database;
import io.commitlane.storage.InvalidStoreNameException;
import io.commitlane.storage.Store;
import io.commitlane.storage.internal.PrintableBytes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Validates and applies replicated commits to one replica's database, in log order, on one thread.
 *
 * <p>The invariant: after an entry is applied, the database holds its writes, the version of each
 * key it wrote, its request record, its transaction-log records and the applied position, all
 * from one RocksDB write, or none of them; an entry of several commits ({@link CommitBatch}) is
 * still one write, its commits validated one after another in slot order. Validation reads only what earlier entries wrote, so every replica reaches the same
 * outcome for the same entry, whether it applies it live, after a restart or after installing a
 * snapshot.
 */
public final class ReplicaApplier {
  private final Database db;
  private long appliedIndex;
  /** The timestamp of the newest log record: the next one gets a later one. */
  private long logClock;

  public ReplicaApplier(Database db) {
    this.db = db;
    byte[] applied = db.internalRecords().get(ReplicaRecords.APPLIED);
    if (applied != null) {
      appliedIndex = ReplicaRecords.readApplied(applied)[1];
    }
    byte[] clock = db.internalRecords().get(ReplicaRecords.LOG_CLOCK);
    logClock = clock == null ? 0 : ReplicaRecords.readLong(clock);
  }

  /** The index of the last commit applied to the database (0 before the first). */
  long appliedIndex() {
    return appliedIndex;
  }

  /**
   * Applies the entry at {@code index} when it holds one commit, and returns its outcome; see
   * {@link #applyEntry}.
   */
  ApplyOutcome apply(long term, long index, byte[] entry) {
    return applyEntry(term, index, entry).get(0);
  }

  /**
   * Applies the entry at {@code index}: each of its commits ({@link CommitBatch}), in slot order,
   * is validated against everything before it in the log (earlier entries and earlier slots of
   * this one) and, when valid, written; the entry's writes, versions, request records and the
   * applied position go to RocksDB in one write. A conflicted or refused commit writes nothing and
   * does not affect its neighbours. An entry at or below what the database already holds is
   * skipped (a restart may replay it) and each of its commits answered as a duplicate.
   */
  List<ApplyOutcome> applyEntry(long term, long index, byte[] entry) {
    if (index <= appliedIndex) {
      int n = 1;
      try {
        n = CommitBatch.decode(entry).size();
      } catch (MalformedEntryException e) {
        // answered as one duplicate
      }
      List<ApplyOutcome> again = new ArrayList<>(n);
      for (int slot = 0; slot < n; slot++) {
        again.add(new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, index, slot, "already applied"));
      }
      return again;
    }
    List<byte[]> commits;
    try {
      commits = CommitBatch.decode(entry);
    } catch (MalformedEntryException e) {
      markOnly(term, index, null);
      return List.of(new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index, e.getMessage()));
    }
    EntryWrites pending = new EntryWrites(index, logClock);
    List<ApplyOutcome> outcomes = new ArrayList<>(commits.size());
    for (int slot = 0; slot < commits.size(); slot++) {
      outcomes.add(applyOne(index, slot, commits.get(slot), pending));
    }
    if (pending.batch.size() == 0 && pending.keys.isEmpty()) {
      markOnly(term, index, null);
    } else {
      pending.keys.add(ReplicaRecords.APPLIED);
      pending.values.add(ReplicaRecords.applied(term, index));
      db.writeWithInternalRecords(pending.batch, pending.keys, pending.values);
      appliedIndex = index;
      logClock = pending.clock;
    }
    return outcomes;
  }

  /** Validates the commit in {@code slot} and, when valid, adds its writes to the entry's. */
  private ApplyOutcome applyOne(long index, int slot, byte[] bytes, EntryWrites pending) {
    ReplicatedCommit commit;
    try {
      commit = ReplicatedCommit.decode(bytes);
    } catch (MalformedEntryException e) {
      return new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index, slot, e.getMessage());
    }
    if (commit.requestId() != null) {
      byte[] requestKey = ReplicaRecords.request(commit.requestId());
      int[] sameEntry = pending.requests.get(ByteBuffer.wrap(requestKey));
      if (sameEntry != null) {
        return new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, index, sameEntry[0], "");
      }
      byte[] earlier = db.internalRecords().get(requestKey);
      if (earlier != null) {
        return new ApplyOutcome(ApplyOutcome.Kind.DUPLICATE, ReplicaRecords.readLong(earlier), ReplicaRecords.readSlot(earlier), "");
      }
    }
    ApplyOutcome outcome = validate(commit, index, slot, pending);
    if (outcome != null) {
      return outcome;
    }
    try {
      pending.add(commit, slot, this);
    } catch (InvalidStoreNameException | InvalidReplicaRequestException e) {
      return new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index, slot, e.getMessage());
    }
    return ApplyOutcome.committed(index, slot);
  }

  /** Null when nothing the commit read was written after its snapshot (by an earlier entry or slot); else the conflict. */
  private ApplyOutcome validate(ReplicatedCommit c, long index, int slot, EntryWrites pending) {
    if (c.snapshotIndex() >= index) {
      return new ApplyOutcome(ApplyOutcome.Kind.REFUSED, index, slot,
          "snapshot index " + c.snapshotIndex() + " is not before the entry's own index");
    }
    for (ReplicatedCommit.ReadKey r : c.readKeys()) {
      byte[] versionKey = ReplicaRecords.version(r.store(), r.key());
      // An earlier slot of this entry wrote it at this entry's index, after any snapshot a commit
      // in the entry can have read.
      byte[] v = pending.versions.containsKey(versionKey) ? ReplicaRecords.longValue(index) : db.internalRecords().get(versionKey);
      if (v != null && ReplicaRecords.readLong(v) > c.snapshotIndex()) {
        return new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, index, slot, r.store() + " key " + PrintableBytes.of(r.key()));
      }
    }
    for (ReplicatedCommit.ReadRange r : c.readRanges()) {
      byte[] from = ReplicaRecords.versionFrom(r.store(), r.from());
      byte[] to = ReplicaRecords.versionTo(r.store(), r.to());
      long[] newer = {0};
      if (Arrays.compareUnsigned(from, to) < 0 && !pending.versions.subMap(from, to).isEmpty()) {
        newer[0] = index;
      } else {
        db.internalRecords().scan(from, to, (key, value) -> {
          if (ReplicaRecords.readLong(value) > c.snapshotIndex()) {
            newer[0] = ReplicaRecords.readLong(value);
            return false;
          }
          return true;
        });
      }
      if (newer[0] != 0) {
        return new ApplyOutcome(ApplyOutcome.Kind.CONFLICTED, index, slot,
            r.store() + " range [" + bound(r.from()) + ", " + bound(r.to()) + ")");
      }
    }
    return expectations(c, index, slot, pending);
  }

  /**
   * Null when every expected key holds its expected value at the commit's place in the log (after
   * earlier entries and earlier slots of this one, before its own writes); else what each expected
   * key holds there.
   */
  private ApplyOutcome expectations(ReplicatedCommit c, long index, int slot, EntryWrites pending) {
    if (c.expects().isEmpty()) {
      return null;
    }
    List<byte[]> actual = new ArrayList<>(c.expects().size());
    boolean hold = true;
    for (ReplicatedCommit.Expect e : c.expects()) {
      byte[] versionKey = ReplicaRecords.version(e.store(), e.key());
      byte[] now;
      if (pending.versions.containsKey(versionKey)) {
        now = pending.versions.get(versionKey);
      } else {
        Store store = db.findStore(e.store()).orElse(null);
        now = store == null ? null : db.get(store, e.key());
      }
      actual.add(now);
      hold &= Arrays.equals(now, e.value());
    }
    return hold ? null : new ApplyOutcome(ApplyOutcome.Kind.EXPECTATIONS, index, slot, "", actual);
  }

  private static String bound(byte[] key) {
    return key == null ? "(open)" : PrintableBytes.of(key);
  }

  /** What the valid commits of one entry write, gathered for one RocksDB write. */
  private static final class EntryWrites {
    final long index;
    final Batch batch = Batch.create();
    final List<byte[]> keys = new ArrayList<>();
    final List<byte[]> values = new ArrayList<>();
    /**
     * Version keys written by earlier slots (their version is this entry's index), each with the
     * value that slot wrote (null: removed), which a later slot's expectations see.
     */
    final TreeMap<byte[], byte[]> versions = new TreeMap<>(Arrays::compareUnsigned);
    /** Request ids committed by earlier slots, and the slot. */
    final Map<ByteBuffer, int[]> requests = new HashMap<>();
    /** Logs appended to by earlier slots: a second record of one log at one index would replace the first. */
    final Set<String> logs = new HashSet<>();
    /** Commit positions used by earlier slots ({@link LogPositions}). */
    int positions;
    long clock;

    public EntryWrites(long index, long clock) {
      this.index = index;
      this.clock = clock;
    }

    void add(ReplicatedCommit c, int slot, ReplicaApplier applier) {
      for (ReplicatedCommit.LogAppend log : c.logs()) {
        if (logs.contains(log.log())) {
          throw new InvalidReplicaRequestException("transaction log '" + log.log() + "' already has a record at index " + index
              + " from an earlier commit of the same entry; send commits that append to one log in separate entries");
        }
      }
      List<ReplicatedCommit.Write> writes = c.writes();
      int used = c.positions();
      if (used > 0) {
        if (used > LogPositions.PER_ENTRY - positions) {
          throw new InvalidReplicaRequestException("the commit uses " + used + " positions, more than the " + (LogPositions.PER_ENTRY
              - positions) + " its entry has left (" + LogPositions.PER_ENTRY + " per entry); send it in an entry of its own");
        }
        // Every replica computes the same positions from the log alone: the entry's index and what earlier slots used.
        long first = LogPositions.first(index) + positions;
        writes = new ArrayList<>(writes);
        for (ReplicatedCommit.PositionedPut p : c.positioned()) {
          writes.add(p.resolve(first));
        }
      }
      // Resolve every store first: a name the database refuses refuses this commit before any of its writes is added.
      List<Store> stores = new ArrayList<>(writes.size());
      for (ReplicatedCommit.Write w : writes) {
        stores.add(applier.store(w.store()));
      }
      positions += used;
      byte[] version = ReplicaRecords.longValue(index);
      for (int i = 0; i < writes.size(); i++) {
        ReplicatedCommit.Write w = writes.get(i);
        if (w.value() == null) {
          batch.remove(stores.get(i), w.key());
        } else {
          batch.put(stores.get(i), w.key(), w.value());
        }
        byte[] versionKey = ReplicaRecords.version(w.store(), w.key());
        keys.add(versionKey);
        values.add(version);
        versions.put(versionKey, w.value());
      }
      if (c.requestId() != null) {
        byte[] requestKey = ReplicaRecords.request(c.requestId());
        keys.add(requestKey);
        values.add(ReplicaRecords.requestValue(index, slot));
        requests.put(ByteBuffer.wrap(requestKey), new int[] {slot});
      }
      if (!c.logs().isEmpty()) {
        // Every replica computes the same timestamp from the log alone: the proposer's clock, made
        // to rise past the record before it.
        clock = Math.max(c.proposedAtMillis(), clock + 1);
        for (ReplicatedCommit.LogAppend log : c.logs()) {
          keys.add(ReplicaRecords.change(index, log.log()));
          values.add(ReplicaLogRecord.encode(clock, log.entries()));
          logs.add(log.log());
        }
        keys.add(ReplicaRecords.LOG_CLOCK);
        values.add(ReplicaRecords.longValue(clock));
      }
    }
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
