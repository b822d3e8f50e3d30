package io.commitlane.replication;

import io.commitlane.replication.internal.apply.AppliedWaiters;
import io.commitlane.replication.internal.apply.ApplyOutcome;
import io.commitlane.replication.internal.apply.ReplicaStateMachine;
import io.commitlane.replication.internal.client.LeaderClient;
import io.commitlane.replication.internal.client.LeaderReads;
import io.commitlane.replication.internal.client.LocalSnapshotReads;
import io.commitlane.replication.internal.client.ReadQuery;
import io.commitlane.replication.internal.client.SnapshotReads;
import io.commitlane.replication.internal.entry.CommitBatch;
import io.commitlane.replication.internal.entry.CommitBatcher;
import io.commitlane.replication.internal.entry.ReplicatedCommit;
import io.commitlane.replication.internal.group.Membership;
import io.commitlane.replication.internal.group.RunningGroup;
import io.commitlane.replication.internal.status.GroupProbe;
import io.commitlane.replication.internal.status.GroupStatus;
import io.commitlane.storage.Database;
import io.commitlane.storage.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A replicated database, as seen from a node that holds a replica of it ({@link ReplicaNode#host})
 * or from a client that holds none ({@link #connect}). Transactions read this node's replica, or
 * the leader for a client, and commit through the group's leader; reads outside transactions go
 * to the leader ({@link ReadConsistency#LINEARIZABLE}) or stay on the local replica ({@link
 * ReadConsistency#LOCAL}).
 *
 * <p>Stages complete on the node's (or the client's) completion threads, never on a Ratis
 * transport thread or the common pool.
 */
public final class ReplicatedDatabase implements AutoCloseable {
  /**
   * The largest commit, encoded: inside the leader's append buffer (Ratis's {@code
   * raft.server.log.appender.buffer.byte-limit}, 4 MiB) with room for the entry's framing. An entry
   * larger than that buffer is never sent to a follower, so it would stay uncommitted at the head
   * of the log with every later entry behind it: such a commit is refused before it is sent.
   */
  public static final int MAX_COMMIT_BYTES = (4 << 20) - (64 << 10);

  private final ReplicationGroup group;
  /** The group's Raft id: derived from its first members, kept through membership changes. */
  private final RaftGroupId groupId;
  /** This node's replica; null for a client that holds none. */
  private final RaftServer.Division division;
  /** The completion threads a client handle owns; null when the node's are used. */
  private final ExecutorService ownCompletions;
  /** Sends this handle's requests to the group's leader. */
  private final LeaderClient leader;
  private volatile boolean closed;
  private final Executor completions;
  private final Duration requestTimeout;
  private final Membership membership;
  /** Asks the replicas for their status; a client's own, a replica's shared with its node. */
  private final GroupProbe probe;
  /** Groups the commits sent through this handle into entries. */
  private final CommitBatcher batcher = new CommitBatcher(this::sendEntry);

  ReplicatedDatabase(ReplicationGroup group, RaftGroupId groupId, RaftServer.Division division, Duration attemptTimeout,
      Duration requestTimeout, Executor completions, ExecutorService ownCompletions, GroupProbe probe) {
    this.group = group;
    this.groupId = groupId;
    this.division = division;
    this.probe = probe;
    this.completions = completions;
    this.ownCompletions = ownCompletions;
    this.requestTimeout = requestTimeout;
    this.leader = new LeaderClient(group, groupId, division, attemptTimeout, requestTimeout, completions);
    this.membership = new Membership(group, groupId, division, leader::current, probe);
  }

  /**
   * A handle for a process that holds no replica: transactions read through the leader (each
   * read a round trip), commits and linearizable reads as from a replica. Close it when done.
   *
   * <p>It first asks the group's replicas which group they run (each has {@link GroupProbe#TIMEOUT}
   * to answer, all at once) and refuses a list of members other than the group's. When none
   * answers, it connects to the group {@code group}'s members form, as it would after they start.
   *
   * @param requestTimeout how long a commit or a read waits for a leader before it fails with
   *     {@link ReplicaUnavailableException}
   * @throws MembershipMismatchException if the running group's members are not {@code group}'s
   */
  public static ReplicatedDatabase connect(ReplicationGroup group, Duration requestTimeout) {
    InvalidReplicaRequestException.required(group, "group");
    requirePositive(requestTimeout, "requestTimeout");
    ExecutorService own = ReplicaNode.completionThreads("client-" + group.database());
    GroupProbe probe = new GroupProbe("client-" + group.database());
    try {
      RunningGroup running = RunningGroup.of(group.database(), probe.groupsOf(group.database(), List.copyOf(group.raftGroup(group.groupId()).getPeers())));
      if (running != null && !running.members().sameMembers(group)) {
        throw new MembershipMismatchException(group, running.members(), running.where(), "the client");
      }
      RaftGroupId id = running == null ? group.groupId() : running.id();
      return new ReplicatedDatabase(group, id, null, ReplicaNode.attemptTimeout(Duration.ZERO), requestTimeout, own, own, probe);
    } catch (RuntimeException e) {
      probe.close();
      own.shutdown();
      throw e;
    }
  }

  private static Duration requirePositive(Duration d, String what) {
    InvalidReplicaRequestException.required(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new InvalidReplicaRequestException(what + " is " + d + "; pass a positive duration");
    }
    return d;
  }

  /** The group's Raft id. */
  RaftGroupId groupId() {
    return groupId;
  }

  public String name() {
    return group.database();
  }

  public ReplicationGroup group() {
    return group;
  }

  /** Whether this handle reads a replica on this node ({@link ReplicaNode#host}), not a client's ({@link #connect}). */
  public boolean holdsReplica() {
    return division != null;
  }

  /** A transaction reading this node's replica, or the leader from a client without one. */
  public ReplicatedTransaction begin() {
    SnapshotReads reads = division == null ? new LeaderReads(this::readThroughLeader) : new LocalSnapshotReads(replica().database());
    return new ReplicatedTransaction(this, reads);
  }

  /** A transaction's read, sent to the leader and waited for on the transaction's thread. */
  private byte[] readThroughLeader(byte[] query) {
    try {
      return leader.send(c -> c.async().sendReadOnly(Message.valueOf(ByteString.copyFrom(query))))
          .handle((reply, error) -> leader.content(reply, error, "read"))
          .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new ReplicaUnavailableException("read failed", e.getCause());
    } catch (TimeoutException e) {
      throw new ReplicaUnavailableException("replicated database '" + name() + "': a read found no leader within "
          + requestTimeout.toMillis() + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReplicaUnavailableException("interrupted while reading through the leader", e);
    }
  }

  /**
   * A change feed of the transaction log {@code log} on this node's replica: the records that
   * commits after index {@code afterIndex} appended ({@link ReplicatedTransaction#log}), from
   * the oldest retained one when {@code afterIndex} is negative. A follower's feed trails the
   * leader by what it has not applied yet; every replica gives the same records at the same
   * indexes.
   *
   * @throws IllegalStateException on a client handle, which holds no replica
   * @throws InvalidReplicaRequestException if the log name is invalid
   */
  public ReplicaChangeFeed changes(String log, long afterIndex) {
    ReplicaLogRecord.checkName(log);
    ReplicaStateMachine replica = replica();
    return new ReplicaChangeFeed(replica::database, replica.applied(), log, afterIndex);
  }

  /**
   * The value of {@code key} in the default store, read through the leader (linearizable).
   *
   * @throws InvalidReplicaRequestException if {@code key} is null
   */
  public CompletionStage<byte[]> get(byte[] key) {
    return get(Store.DEFAULT, key, ReadConsistency.LINEARIZABLE);
  }

  /**
   * The value of {@code key} in {@code store} (null when either does not exist), read as {@code
   * consistency} says.
   *
   * @throws InvalidReplicaRequestException if an argument is null or the store name is longer
   *     than a read can carry (65,535 UTF-8 bytes; a store name is at most 255)
   */
  public CompletionStage<byte[]> get(String store, byte[] key, ReadConsistency consistency) {
    ReadQuery.checkStore(store);
    InvalidReplicaRequestException.required(key, "key");
    InvalidReplicaRequestException.required(consistency, "consistency");
    if (consistency == ReadConsistency.LOCAL) {
      CompletableFuture<byte[]> local = new CompletableFuture<>();
      if (division == null) {
        local.completeExceptionally(new IllegalStateException(
            "a client handle holds no replica to read locally; read LINEARIZABLE, through the leader"));
        return local;
      }
      try {
        Database db = replica().database();
        Store s = db.findStore(store).orElse(null);
        local.complete(s == null ? null : db.get(s, key));
      } catch (RuntimeException e) {
        local.completeExceptionally(e);
      }
      return local;
    }
    Message query = Message.valueOf(ByteString.copyFrom(ReadQuery.get(store, key)));
    return leader.send(c -> c.async().sendReadOnly(query))
        .handleAsync((reply, error) -> ReadQuery.readGet(leader.content(reply, error, "read")).value(), completions);
  }

  /**
   * A read barrier: completes, with the index it waited for, once this node's replica has applied
   * every commit acknowledged before the call (the leader's applied index, learned with a
   * linearizable read). Reads of the local replica after it are linearizable: one round trip to
   * the leader for any number of local reads and scans.
   *
   * @throws IllegalStateException on a client handle, which holds no replica
   */
  public CompletionStage<Long> sync() {
    AppliedWaiters applied = replica().applied();
    Message query = Message.valueOf(ByteString.copyFrom(ReadQuery.applied()));
    return leader.send(c -> c.async().sendReadOnly(query))
        .handleAsync((reply, error) -> ReadQuery.readApplied(leader.content(reply, error, "read barrier")), completions)
        .thenCompose(index -> applied.whenAppliedBeyond(index - 1).thenApply(v -> index));
  }

  /**
   * The index of the last entry this node's replica applied: everything up to it is committed on
   * a majority and readable here.
   *
   * @throws IllegalStateException on a client handle, which holds no replica
   */
  public long appliedIndex() {
    return replica().applied().applied();
  }

  /**
   * Completes once this node's replica has applied the entry at {@code index} (at once if it
   * has), on the node's completion threads: after a commit's receipt, local reads see it.
   *
   * @throws IllegalStateException on a client handle, which holds no replica
   */
  public CompletionStage<Void> whenApplied(long index) {
    return replica().applied().whenAppliedBeyond(index - 1);
  }

  /**
   * Runs {@code listener} with the applied index each time this node's replica applies entries,
   * on the replica's apply thread, after their data is readable: it must only hand over (set a
   * flag, schedule a task), never block or read. Returns what removes it.
   *
   * @throws IllegalStateException on a client handle, which holds no replica
   */
  public Runnable onApplied(java.util.function.LongConsumer listener) {
    InvalidReplicaRequestException.required(listener, "listener");
    return replica().applied().listen(listener);
  }

  /**
   * Sends a commit through this handle's {@link CommitBatcher}: alone in its entry when none of
   * the handle's entries waits, else with the commits submitted meanwhile.
   */
  CompletionStage<CommitReceipt> propose(ReplicatedCommit commit) {
    byte[] encoded = commit.encode();
    if (encoded.length > MAX_COMMIT_BYTES) {
      return CompletableFuture.failedFuture(new InvalidReplicaRequestException("the commit takes " + encoded.length
          + " bytes in the log, more than the largest entry (" + MAX_COMMIT_BYTES + " bytes); nothing was sent. Split it"
          + " into smaller commits"));
    }
    return batcher.submit(encoded, logNames(commit)).thenApply(ReplicatedDatabase::receipt);
  }

  private static Set<String> logNames(ReplicatedCommit commit) {
    if (commit.logs().isEmpty()) {
      return Set.of();
    }
    Set<String> names = new HashSet<>();
    commit.logs().forEach(l -> names.add(l.log()));
    return names;
  }

  /** Sends one entry (one commit or a {@link CommitBatch}); completes with the reply's bytes on the completion threads. */
  private CompletionStage<byte[]> sendEntry(byte[] bytes) {
    Message entry = Message.valueOf(ByteString.copyFrom(bytes));
    return leader.send(c -> c.async().send(entry)).handleAsync((reply, error) -> leader.content(reply, error, "commit"), completions);
  }

  private static CommitReceipt receipt(ApplyOutcome outcome) {
    return switch (outcome.kind()) {
      case COMMITTED -> new CommitReceipt(outcome.index(), outcome.slot(), false);
      case DUPLICATE -> new CommitReceipt(outcome.index(), outcome.slot(), true);
      case CONFLICTED -> throw new ReplicaConflictException(outcome.index(), outcome.detail());
      case EXPECTATIONS -> throw new ReplicaExpectationException(outcome.index(), outcome.actual());
      case REFUSED -> throw new CommitRefusedException(outcome.index(), outcome.detail());
    };
  }

  /**
   * This replica's view of itself and its group.
   *
   * @throws IllegalStateException on a client handle, which holds no replica
   */
  public ReplicaStatus status() {
    replica();
    return GroupStatus.of(name(), division);
  }

  /**
   * Every replica of the group as it answers now, asked over the network, all at once (each has
   * {@link GroupProbe#TIMEOUT}, 5 s, to answer; a stopped one refuses at once, so only a frozen or
   * cut-off replica makes the call wait that long): role, leader, term, log, commit and applied
   * indexes. What {@code ./commitlane replica status} prints; works from a client handle too.
   */
  public List<ReplicaReport> groupStatus() {
    requireOpen();
    List<RaftPeer> peers = new ArrayList<>(group.raftGroup(groupId).getPeers());
    if (division != null) {
      peers = new ArrayList<>(division.getRaftConf().getCurrentPeers());
      peers.addAll(division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER));
    }
    return probe.reports(groupId, peers);
  }

  /**
   * Adds {@code peer}, which must already host an empty replica ({@link ReplicaNode#join}) or be
   * one of the group's listeners, to the voters: first as a listener that catches up, then as a
   * voter once it holds what the leader had committed when it started. Blocks until the new
   * configuration is committed. Works on a replica's handle and on a client's ({@link
   * ReplicatedDatabase#connect}); a client first checks that the group's members are those it was
   * given, and that the node hosts a replica of the group (else it changes nothing).
   *
   * @throws ReplicaUnavailableException if the group refused the change or it did not complete in
   *     {@code timeout}, or (on a client) the node hosts no replica of the group or no leader answered
   * @throws MembershipMismatchException on a client, if the group's members are not those it was given
   */
  public void addReplica(ReplicaPeer peer, Duration timeout) throws InterruptedException {
    InvalidReplicaRequestException.required(peer, "peer");
    requirePositive(timeout, "timeout");
    membership.addReplica(peer, timeout);
  }

  /**
   * Adds {@code peer}, which must already host an empty replica ({@link ReplicaNode#join}), as a
   * non-voting listener: it receives and applies every commit (local reads, change feeds) without
   * counting toward the majority. Returns once the configuration is committed; the listener
   * catches up in the background. Works on a replica's handle and on a client's.
   */
  public void addListener(ReplicaPeer peer) {
    InvalidReplicaRequestException.required(peer, "peer");
    membership.addListener(peer);
  }

  /**
   * Removes the replica on node {@code id}, a voter or a listener, from the group; its node can
   * then be retired (its files are no longer needed). Removing the leader makes another replica
   * lead. Keep an odd number of voters: the group needs a majority of them to commit. Works on a
   * replica's handle and on a client's.
   *
   * @throws ReplicaUnavailableException if the group refused the change or no replica answered
   * @throws MembershipMismatchException on a client, if the group's members are not those it was given
   */
  public void removeReplica(String id) {
    if (InvalidReplicaRequestException.required(id, "replica id").isBlank()) {
      throw new InvalidReplicaRequestException("the replica id is blank; pass the id of the replica to remove");
    }
    membership.removeReplica(id);
  }

  private ReplicaStateMachine replica() {
    if (division == null) {
      throw new IllegalStateException("a client handle holds no replica of '" + name() + "'");
    }
    return (ReplicaStateMachine) division.getStateMachine();
  }

  /**
   * Closes a client handle: its connections and completion threads. A handle from {@link
   * ReplicaNode#host} is closed with its node; closing it here only closes its connections.
   */
  @Override
  public void close() {
    closed = true;
    try {
      leader.close();
    } finally {
      if (ownCompletions != null) {
        probe.close();
        ownCompletions.shutdown();
      }
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the handle of replicated database '" + name() + "' is closed");
    }
  }
}
