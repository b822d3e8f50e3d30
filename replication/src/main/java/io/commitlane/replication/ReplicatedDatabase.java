package io.commitlane.replication;

import io.commitlane.storage.Database;
import io.commitlane.storage.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

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
  /** How often a request to an unreachable group is tried again within its timeout. */
  private static final Duration RETRY_SLEEP = Duration.ofMillis(100);

  private final ReplicationGroup group;
  /** This node's replica; null for a client that holds none. */
  private final RaftServer.Division division;
  /** The completion threads a client handle owns; null when the node's are used. */
  private final ExecutorService ownCompletions;
  /**
   * Replaced when a request gave up: Ratis fails every later request of an ordered client whose
   * request ran out of retries, so the next request starts on a new one.
   */
  private final AtomicReference<RaftClient> client = new AtomicReference<>();
  private final Duration attemptTimeout;
  private volatile boolean closed;
  private final Executor completions;
  private final Duration requestTimeout;
  private final Membership membership;

  ReplicatedDatabase(ReplicationGroup group, RaftServer.Division division, Duration attemptTimeout,
      Duration requestTimeout, Executor completions, ExecutorService ownCompletions) {
    this.group = group;
    this.division = division;
    this.completions = completions;
    this.ownCompletions = ownCompletions;
    this.requestTimeout = requestTimeout;
    this.attemptTimeout = attemptTimeout;
    client.set(newClient());
    this.membership = new Membership(group.database(), group.groupId(), division, client::get);
  }

  private RaftClient newClient() {
    RaftProperties p = new RaftProperties();
    // One attempt waits about one election for a reply, then the client tries the next replica;
    // the whole request gives up after requestTimeout.
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(attemptTimeout.toMillis(), TimeUnit.MILLISECONDS));
    int attempts = (int) Math.max(1, requestTimeout.toMillis() / RETRY_SLEEP.toMillis());
    return RaftClient.newBuilder()
        .setProperties(p)
        .setRaftGroup(group.raftGroup())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts,
            TimeDuration.valueOf(RETRY_SLEEP.toMillis(), TimeUnit.MILLISECONDS)))
        .build();
  }

  /** Runs {@code request} on the current client; replaces that client if the request gave up. */
  private CompletableFuture<RaftClientReply> send(Function<RaftClient, CompletableFuture<RaftClientReply>> request) {
    RaftClient used = client.get();
    return request.apply(used).orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((reply, error) -> {
          if (error != null) {
            renew(used);
          }
        });
  }

  private void renew(RaftClient failed) {
    if (closed) {
      return;
    }
    RaftClient fresh = newClient();
    if (client.compareAndSet(failed, fresh)) {
      closeQuietly(failed);
      if (closed) { // closed meanwhile: close what close() could not see
        closeQuietly(fresh);
      }
    } else {
      closeQuietly(fresh);
    }
  }

  private static void closeQuietly(RaftClient c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing a client only releases its channels; nothing to keep
    }
  }

  /**
   * A handle for a process that holds no replica: transactions read through the leader (each
   * read a round trip), commits and linearizable reads as from a replica. Close it when done.
   *
   * @param requestTimeout how long a commit or a read waits for a leader before it fails with
   *     {@link ReplicaUnavailableException}
   */
  public static ReplicatedDatabase connect(ReplicationGroup group, Duration requestTimeout) {
    ExecutorService own = ReplicaNode.completionThreads("client-" + group.database());
    return new ReplicatedDatabase(group, null, ReplicaNode.attemptTimeout(Duration.ZERO), requestTimeout, own, own);
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
      return send(c -> c.async().sendReadOnly(Message.valueOf(ByteString.copyFrom(query))))
          .handle((reply, error) -> content(reply, error, "read"))
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
   * @throws IllegalArgumentException if the log name is invalid
   */
  public ReplicaChangeFeed changes(String log, long afterIndex) {
    ReplicaLogRecord.checkName(log);
    ReplicaStateMachine replica = replica();
    return new ReplicaChangeFeed(replica::database, replica.applied(), log, afterIndex);
  }

  /** The value of {@code key} in the default store, read through the leader (linearizable). */
  public CompletionStage<byte[]> get(byte[] key) {
    return get(Store.DEFAULT, key, ReadConsistency.LINEARIZABLE);
  }

  public CompletionStage<byte[]> get(String store, byte[] key, ReadConsistency consistency) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(consistency, "consistency");
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
    return send(c -> c.async().sendReadOnly(query))
        .handleAsync((reply, error) -> ReadQuery.readGet(content(reply, error, "read")).value(), completions);
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
    return send(c -> c.async().sendReadOnly(query))
        .handleAsync((reply, error) -> ReadQuery.readApplied(content(reply, error, "read barrier")), completions)
        .thenCompose(index -> applied.whenAppliedBeyond(index - 1).thenApply(v -> index));
  }

  CompletionStage<CommitReceipt> propose(ReplicatedCommit commit) {
    Message entry = Message.valueOf(ByteString.copyFrom(commit.encode()));
    return send(c -> c.async().send(entry)).handleAsync((reply, error) -> receipt(content(reply, error, "commit")), completions);
  }

  private static CommitReceipt receipt(byte[] content) {
    ApplyOutcome outcome = ApplyOutcome.decode(content);
    return switch (outcome.kind()) {
      case COMMITTED -> new CommitReceipt(outcome.index(), false);
      case DUPLICATE -> new CommitReceipt(outcome.index(), true);
      case CONFLICTED -> throw new ReplicaConflictException(outcome.index(), outcome.detail());
      case REFUSED -> throw new CommitRefusedException(outcome.index(), outcome.detail());
    };
  }

  /** The reply's bytes, or the failure as one of this module's typed errors. */
  private byte[] content(RaftClientReply reply, Throwable error, String what) {
    if (error != null) {
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      throw new ReplicaUnavailableException("replicated database '" + name() + "': the " + what
          + " found no leader within its timeout (" + cause + "); a commit may or may not have been applied", cause);
    }
    if (!reply.isSuccess()) {
      if (reply.getStateMachineException() != null && reply.getStateMachineException().getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new ReplicaUnavailableException("replicated database '" + name() + "': the " + what + " failed: " + reply.getException(),
          reply.getException());
    }
    return reply.getMessage().getContent().toByteArray();
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
   * Every replica of the group as it answers now, asked over the network (1 s each, without
   * retries): role, leader, term, log, commit and applied indexes. What {@code ./commitlane
   * replica status} prints; works from a client handle too.
   */
  public List<ReplicaReport> groupStatus() {
    List<RaftPeer> peers = new ArrayList<>(group.raftGroup().getPeers());
    if (division != null) {
      peers = new ArrayList<>(division.getRaftConf().getCurrentPeers());
      peers.addAll(division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER));
    }
    return GroupStatus.ask(group.groupId(), peers);
  }

  /**
   * Adds {@code peer}, which must already host an empty replica ({@link ReplicaNode#join}) or be
   * one of the group's listeners, to the voters: first as a listener that catches up, then as a
   * voter once it holds what the leader had committed when it started. Blocks until the new
   * configuration is committed. Called on a node that holds a replica.
   *
   * @throws ReplicaUnavailableException if the group refused the change or it did not complete in {@code timeout}
   */
  public void addReplica(ReplicaPeer peer, Duration timeout) throws InterruptedException {
    membership.addReplica(peer, timeout);
  }

  /**
   * Adds {@code peer}, which must already host an empty replica ({@link ReplicaNode#join}), as a
   * non-voting listener: it receives and applies every commit (local reads, change feeds) without
   * counting toward the majority. Returns once the configuration is committed; the listener
   * catches up in the background. Called on a node that holds a replica.
   */
  public void addListener(ReplicaPeer peer) {
    membership.addListener(peer);
  }

  /**
   * Removes the replica on node {@code id}, a voter or a listener, from the group; its node can
   * then be retired (its files are no longer needed). Removing the leader makes another replica
   * lead. Keep an odd number of voters: the group needs a majority of them to commit.
   */
  public void removeReplica(String id) {
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
      closeQuietly(client.get());
    } finally {
      if (ownCompletions != null) {
        ownCompletions.shutdown();
      }
    }
  }
}
