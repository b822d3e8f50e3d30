package io.commitlane.replication;

import io.commitlane.replication.internal.client.ReadQuery;
import io.commitlane.replication.internal.client.SnapshotReads;
import io.commitlane.replication.internal.entry.ReplicatedCommit;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.KeyValue;
import io.commitlane.storage.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

/**
 * A transaction on a replicated database: it reads one snapshot of this node's replica (or, from
 * a client without a replica, reads through the leader), plus its own writes, and its commit is
 * validated by every replica at the commit's place in the group's log against every commit
 * before it. Serializable, like a local transaction.
 *
 * <p>A read on a follower may be a few milliseconds behind the leader; that costs a conflict at
 * commit, never a wrong result. Not thread-safe: one thread at a time. Always end it with {@link
 * #commit()} or {@link #close()}.
 */
public final class ReplicatedTransaction implements AutoCloseable {
  private static final Comparator<byte[]> BYTES = Arrays::compareUnsigned;

  private final ReplicatedDatabase database;
  private final SnapshotReads snapshot;
  private final List<ReplicatedCommit.ReadKey> readKeys = new ArrayList<>();
  private final List<ReplicatedCommit.ReadRange> readRanges = new ArrayList<>();
  /** Its writes by store, in key order; a null value is a delete. */
  private final Map<String, TreeMap<byte[], byte[]>> writes = new TreeMap<>();
  /** The entries of the record it appends to each transaction log, by log name. */
  private final Map<String, List<byte[]>> logs = new LinkedHashMap<>();
  private final List<ReplicatedCommit.Expect> expects = new ArrayList<>();
  private final List<ReplicatedCommit.PositionedPut> positioned = new ArrayList<>();
  private boolean ended;

  ReplicatedTransaction(ReplicatedDatabase database, SnapshotReads snapshot) {
    this.database = database;
    this.snapshot = snapshot;
  }

  /** The value of {@code key} in the default store, or null; the commit conflicts if another commit wrote it first. */
  public byte[] get(byte[] key) {
    return get(Store.DEFAULT, key);
  }

  /** The value of {@code key} in the named store, or null (also when the store does not exist yet). */
  public byte[] get(String store, byte[] key) {
    requireOpen();
    ReadQuery.checkStore(store);
    InvalidReplicaRequestException.required(key, "key");
    TreeMap<byte[], byte[]> own = writes.get(store);
    if (own != null && own.containsKey(key)) {
      byte[] v = own.get(key);
      return v == null ? null : v.clone();
    }
    readKeys.add(new ReplicatedCommit.ReadKey(store, key.clone()));
    return snapshot.get(store, key);
  }

  /**
   * The keys and values of {@code range} in the default store, with this transaction's own writes.
   * The commit conflicts if another commit wrote a key in the part of the range that was read.
   */
  public List<KeyValue> list(KeyRange range) {
    return list(Store.DEFAULT, range);
  }

  /** {@link #list(KeyRange)} in the named store ({@code range}'s own store is not used). */
  public List<KeyValue> list(String store, KeyRange range) {
    requireOpen();
    ReadQuery.checkStore(store);
    InvalidReplicaRequestException.required(range, "range");
    byte[] start = start(range);
    byte[] end = end(range);
    TreeMap<byte[], byte[]> own = writes.getOrDefault(store, new TreeMap<>(BYTES));
    Map<byte[], byte[]> ownInRange = start == null && end == null ? own
        : start == null ? own.headMap(end, false) : end == null ? own.tailMap(start, true) : own.subMap(start, true, end, false);
    // Read enough of the snapshot that own deletes cannot leave the page short.
    KeyRange snapshotRange = range.limit() == 0 ? range : range.limit(range.limit() + ownInRange.size());
    TreeMap<byte[], byte[]> merged = new TreeMap<>(BYTES);
    for (KeyValue kv : snapshot.scan(store, snapshotRange)) {
      merged.put(kv.key(), kv.value());
    }
    for (Map.Entry<byte[], byte[]> w : ownInRange.entrySet()) {
      if (w.getValue() == null) {
        merged.remove(w.getKey());
      } else {
        merged.put(w.getKey().clone(), range.isKeysOnly() ? null : w.getValue().clone());
      }
    }
    List<KeyValue> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : (range.isReverse() ? merged.descendingMap() : merged).entrySet()) {
      if (range.limit() != 0 && out.size() == range.limit()) {
        break;
      }
      out.add(new KeyValue(e.getKey(), e.getValue()));
    }
    trackRange(store, start, end, range, out);
    return out;
  }

  /** A scan stopped by its limit covers only what it returned, as for local transactions. */
  private void trackRange(String store, byte[] start, byte[] end, KeyRange range, List<KeyValue> out) {
    if (range.limit() != 0 && out.size() == range.limit()) {
      byte[] last = out.get(out.size() - 1).key();
      if (range.isReverse()) {
        start = last;
      } else {
        end = Arrays.copyOf(last, last.length + 1); // just past the last key returned
      }
    }
    readRanges.add(new ReplicatedCommit.ReadRange(store, start, end));
  }

  private static byte[] start(KeyRange r) {
    byte[] lower = r.lowerBound();
    return lower == null || r.isLowerInclusive() ? lower : Arrays.copyOf(lower, lower.length + 1);
  }

  private static byte[] end(KeyRange r) {
    byte[] upper = r.upperBound();
    return upper == null || !r.isUpperInclusive() ? upper : Arrays.copyOf(upper, upper.length + 1);
  }

  public ReplicatedTransaction put(byte[] key, byte[] value) {
    return put(Store.DEFAULT, key, value);
  }

  /** Buffers a put; a store that does not exist yet is created by the commit, on every replica. */
  public ReplicatedTransaction put(String store, byte[] key, byte[] value) {
    requireOpen();
    checkWrite(store, key);
    buffer(store, key, InvalidReplicaRequestException.required(value, "value").clone());
    return this;
  }

  public ReplicatedTransaction remove(byte[] key) {
    return remove(Store.DEFAULT, key);
  }

  public ReplicatedTransaction remove(String store, byte[] key) {
    requireOpen();
    checkWrite(store, key);
    buffer(store, key, null);
    return this;
  }

  private static void checkWrite(String store, byte[] key) {
    InvalidReplicaRequestException.required(store, "store");
    InvalidReplicaRequestException.required(key, "key");
  }

  private void buffer(String store, byte[] key, byte[] value) {
    writes.computeIfAbsent(store, s -> new TreeMap<>(BYTES)).put(key.clone(), value);
  }

  /**
   * Buffers a put whose key and value receive commit positions ({@link LogPositions}) as every
   * replica applies the commit: at each of {@code stamps}, 8 bytes are overwritten with the
   * commit's first position plus the stamp's ordinal. Positions increase in log order and are the
   * same on every replica: an index keyed by them (a tag's events in commit order) reads the same
   * everywhere and can be resumed from any position. Ordinals count within this commit; the
   * commit uses as many positions as its largest ordinal plus one.
   *
   * <p>A positioned put is applied after the transaction's other writes and is not visible to its
   * own reads. It needs every replica of the group to know positioned puts (this version or
   * later); one that does not refuses the entry.
   *
   * @throws InvalidReplicaRequestException if an argument is null, a stamp does not fit its key
   *     or value, or the commit would use more than {@link LogPositions#PER_ENTRY} positions
   */
  public ReplicatedTransaction putPositioned(String store, byte[] key, byte[] value, List<PositionStamp> stamps) {
    requireOpen();
    checkWrite(store, key);
    InvalidReplicaRequestException.required(value, "value");
    InvalidReplicaRequestException.required(stamps, "stamps");
    for (PositionStamp s : stamps) {
      int length = s.inValue() ? value.length : key.length;
      if (s.offset() > length - 8) {
        throw new InvalidReplicaRequestException("a position stamp at byte " + s.offset() + " does not fit the " + length
            + "-byte " + (s.inValue() ? "value" : "key") + "; a position takes 8 bytes");
      }
    }
    positioned.add(new ReplicatedCommit.PositionedPut(store, key.clone(), value.clone(), stamps));
    return this;
  }

  /**
   * Makes the commit conditional: it applies only if {@code key} in {@code store} holds {@code
   * value} (is absent, for a null value) at the commit's place in the group's log, before this
   * transaction's own writes. Every replica checks it there, in log order, so it needs no read
   * and no read barrier, from a follower or a client as from the leader; the check cannot be
   * stale. When one does not hold, the commit fails with {@link ReplicaExpectationException},
   * which says what every expected key held. An expectation is not a read: it does not conflict
   * with other commits.
   *
   * <p>A commit with expectations needs every replica of the group to know them (this version or
   * later); one that does not refuses the entry.
   *
   * @throws InvalidReplicaRequestException if the store or the key is null
   */
  public ReplicatedTransaction expect(String store, byte[] key, byte[] value) {
    requireOpen();
    ReadQuery.checkStore(store);
    InvalidReplicaRequestException.required(key, "key");
    expects.add(new ReplicatedCommit.Expect(store, key.clone(), value == null ? null : value.clone()));
    return this;
  }

  /**
   * Appends {@code entries} to the record this commit adds to the transaction log {@code log}
   * (one record per log and commit; a second call adds entries to it). Every replica that applies
   * the commit holds the record at the commit's index, and change feeds ({@link
   * ReplicatedDatabase#changes}) read it from any replica. A commit that conflicts or is refused
   * appends nothing; a resent request id appends nothing again.
   *
   * @throws InvalidReplicaRequestException if the name is not 1..128 of A-Z a-z 0-9 . _ - starting
   *     with a letter or digit, or an entry is null
   */
  public ReplicatedTransaction log(String log, byte[]... entries) {
    requireOpen();
    ReplicaLogRecord.checkName(log);
    InvalidReplicaRequestException.required(entries, "log entries");
    for (byte[] e : entries) {
      InvalidReplicaRequestException.required(e, "log entry");
    }
    List<byte[]> record = logs.computeIfAbsent(log, l -> new ArrayList<>());
    for (byte[] e : entries) {
      record.add(e.clone());
    }
    return this;
  }

  /**
   * Proposes the commit to the group. The stage completes once a majority holds it and the leader
   * applied it ({@link CommitReceipt}), or fails with {@link ReplicaConflictException} (run the
   * transaction again), {@link ReplicaExpectationException} (an {@link #expect expectation} did not
   * hold), {@link CommitRefusedException}, or {@link ReplicaUnavailableException}
   * (no leader in time: it may or may not have committed; use {@link #commit(byte[])} to resend
   * safely).
   */
  public CompletionStage<CommitReceipt> commit() {
    return commit(null);
  }

  /**
   * {@link #commit()} with a request id: a commit with an id that committed before is answered
   * from that first commit ({@link CommitReceipt#resent()}) and not applied again, whichever
   * replica leads by then. Ids are kept for the replica's lifetime.
   */
  public CompletionStage<CommitReceipt> commit(byte[] requestId) {
    requireOpen();
    if (requestId != null && requestId.length == 0) {
      throw new InvalidReplicaRequestException("the request id is empty; pass an id of at least one byte, or none (null)");
    }
    ended = true;
    try {
      long snapshotIndex = snapshot.snapshotIndex();
      List<ReplicatedCommit.Write> list = new ArrayList<>();
      writes.forEach((store, kv) -> kv.forEach((k, v) -> list.add(new ReplicatedCommit.Write(store, k, v))));
      List<ReplicatedCommit.LogAppend> appends = new ArrayList<>(logs.size());
      logs.forEach((log, entries) -> appends.add(new ReplicatedCommit.LogAppend(log, entries)));
      ReplicatedCommit commit = new ReplicatedCommit(snapshotIndex, requestId == null ? null : requestId.clone(),
          System.currentTimeMillis(), readKeys, readRanges, list, appends, expects, positioned);
      return database.propose(commit);
    } finally {
      snapshot.close();
    }
  }

  /** Drops the buffered writes and the snapshot. */
  public void abort() {
    if (!ended) {
      ended = true;
      snapshot.close();
    }
  }

  @Override
  public void close() {
    abort();
  }

  private void requireOpen() {
    if (ended) {
      throw new IllegalStateException("the transaction has ended (committed or aborted); begin a new one");
    }
  }
}
