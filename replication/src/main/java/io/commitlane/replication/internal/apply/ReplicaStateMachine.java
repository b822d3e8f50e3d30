package io.commitlane.replication.internal.apply;

import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.internal.client.ReadQuery;
import io.commitlane.replication.internal.entry.CommitBatch;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica of a replicated database: Ratis hands it the group's committed entries in log
 * order and it applies them to its own RocksDB database ({@link ReplicaApplier}).
 *
 * <p>What makes a restart exact: the applied position is written with each entry's data, so a
 * replica that restarts (or loses RocksDB's unflushed writes with the WAL off) skips what its
 * database holds and applies the rest from the Raft log, which Ratis keeps from the latest
 * snapshot on. A snapshot is a RocksDB checkpoint taken between two entries; a replica too far
 * behind receives one and reopens its database from it.
 */
public final class ReplicaStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaStateMachine.class);

  private final ReplicaSnapshots snapshots = new ReplicaSnapshots();
  private final DatabaseOptions options;
  private final Duration logRetention;
  private final AppliedWaiters applied;
  private final Runnable beforeOpen;
  /** Replaced when a snapshot is installed; null while closed. */
  private volatile Database db;
  /** Touched only by Ratis's apply thread (and by initialize and reinitialize before it runs). */
  private ReplicaApplier applier;

  /** {@code beforeOpen} runs as the replica starts, before it opens its database (tests hold a start there). */
  public ReplicaStateMachine(DatabaseOptions options, Duration logRetention, Executor completions, Runnable beforeOpen) {
    this.options = options;
    this.logRetention = logRetention;
    this.applied = new AppliedWaiters(completions);
    this.beforeOpen = beforeOpen;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    super.initialize(server, groupId, storage);
    snapshots.init(storage);
    beforeOpen.run();
    getLifeCycle().startAndTransition(this::open);
  }

  /** Ratis pauses the replica before it puts an installed snapshot in place (once per chunk received). */
  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** After a snapshot was installed: reopen the database from it. */
  @Override
  public void reinitialize() throws IOException {
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
    }
    closeDatabase();
    open();
    if (getLifeCycleState() == LifeCycle.State.STARTING) {
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  /**
   * Opens the database. When it is missing, or behind the latest snapshot (one installed from the
   * leader, or a crash in the middle of putting it in place), it is first restored from that
   * snapshot: Ratis replays the log only from the latest snapshot on.
   */
  private void open() throws IOException {
    Path dir = snapshots.databaseDir();
    Directories.delete(dir.resolveSibling("db.staging")); // never a whole database
    Optional<TermIndex> latest = snapshots.latest();
    if (!Files.exists(dir) && latest.isPresent()) {
      restoreFrom(latest.get());
    }
    Directories.delete(dir.resolveSibling("db.replaced"));
    Database opened = Database.open(dir, options);
    ReplicaApplier opening = new ReplicaApplier(opened);
    if (latest.isPresent() && opening.appliedIndex() < latest.get().getIndex()) {
      opened.close();
      restoreFrom(latest.get());
      opened = Database.open(dir, options);
      opening = new ReplicaApplier(opened);
    }
    applier = opening;
    db = opened;
    applied.advanced(opening.appliedIndex());
    // Ratis replays the log from the latest snapshot on, whatever the database holds beyond it:
    // the applied position starts there and moves through the replayed entries, which the
    // applier skips up to the database's own position.
    TermIndex fromSnapshot = latest.orElse(TermIndex.INITIAL_VALUE);
    setLastAppliedTermIndex(fromSnapshot);
    LOG.info("{}: replica opened at applied index {} (latest snapshot {})", getId(), opening.appliedIndex(), fromSnapshot);
  }

  /** Replaces the database with the snapshot's copy: moved aside, copied in, then deleted. */
  private void restoreFrom(TermIndex snapshot) throws IOException {
    Path dir = snapshots.databaseDir();
    Path replaced = dir.resolveSibling("db.replaced");
    Directories.delete(replaced);
    if (Files.exists(dir)) {
      Files.move(dir, replaced, StandardCopyOption.ATOMIC_MOVE);
    }
    Directories.linkCopy(snapshots.directoryFor(snapshot), dir, ReplicaSnapshots.DIGEST_SUFFIX);
    Directories.delete(replaced);
    LOG.info("{}: replica restored from snapshot {}", getId(), snapshot);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long term = entry.getTerm();
    long index = entry.getIndex();
    byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
    List<ApplyOutcome> outcomes;
    try {
      outcomes = applier.applyEntry(term, index, data);
    } catch (RuntimeException e) {
      // The database failed under the entry (a full disk, a closed handle): the replica cannot go
      // on without skipping it, which would diverge. Ratis stops applying and reports it.
      LOG.error("{}: cannot apply entry {}: {}", getId(), index, e.toString());
      return CompletableFuture.failedFuture(e);
    }
    updateLastAppliedTermIndex(term, index);
    applied.advanced(index);
    byte[] reply = CommitBatch.isBatch(data) ? CommitBatch.encodeOutcomes(outcomes) : outcomes.get(0).encode();
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
  }

  /** Configuration and leader entries: applied by Ratis without us, but a barrier may wait for them. */
  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    super.notifyTermIndexUpdated(term, index);
    applied.advanced(index);
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    try {
      return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(ReadQuery.answer(database(), request.getContent().toByteArray()))));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex last = getLastAppliedTermIndex();
    if (last == null || last.getIndex() <= 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    Path target = snapshots.directoryFor(last);
    if (Files.exists(target)) {
      return last.getIndex();
    }
    // Entries Ratis applied without us (configuration, metadata) moved the position past the
    // database's own record; record it, so a restart finds the database level with the snapshot.
    applier.markApplied(last.getTerm(), last.getIndex());
    long trimmed = applier.trimLogs(logRetention);
    if (trimmed > 0) {
      LOG.info("{}: trimmed {} transaction-log records older than {} before the newest", getId(), trimmed, logRetention);
    }
    Path staging = snapshots.stagingFor(last);
    Directories.delete(staging);
    Files.createDirectories(staging.getParent());
    // Taken on the apply thread, between two entries: the copy holds exactly what was applied.
    database().checkpoint(staging);
    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    LOG.info("{}: snapshot taken at {}", getId(), last);
    return last.getIndex();
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return snapshots;
  }

  @Override
  public org.apache.ratis.statemachine.SnapshotInfo getLatestSnapshot() {
    return snapshots.getLatestSnapshot();
  }

  /** The replica's database, for reads on this node. */
  public Database database() {
    Database d = db;
    if (d == null) {
      throw new ReplicaUnavailableException("the replica's database is closed or being restored from a snapshot; retry");
    }
    return d;
  }

  /** Waits for this replica to apply past an index; see {@link AppliedWaiters}. */
  public AppliedWaiters applied() {
    return applied;
  }

  @Override
  public void close() throws IOException {
    applied.close(new ReplicaUnavailableException("the replica's node closed"));
    closeDatabase();
    super.close();
  }

  private void closeDatabase() {
    Database d = db;
    db = null;
    if (d != null) {
      try {
        d.close();
      } catch (RuntimeException e) {
        throw new UncheckedIOException(new IOException("closing the replica's database failed", e));
      }
    }
  }
}
