package io.commitlane.replication.internal.client;

import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicationGroup;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;

/**
 * Sends a {@link ReplicatedDatabase} handle's requests to its group's leader through one Ratis
 * client: to the leader this node's replica knows of first, through elections by Ratis's retries,
 * past a replica that hosts no such group to the next voter, on a new client once a request gave
 * up (Ratis fails every later request of an ordered client whose request ran out of retries), and
 * decodes a reply into its bytes or one of this module's typed errors.
 */
public final class LeaderClient implements AutoCloseable {
  /** How often a request to an unreachable group is tried again within its timeout. */
  private static final Duration RETRY_SLEEP = Duration.ofMillis(100);

  private final ReplicationGroup group;
  private final RaftGroupId groupId;
  /** This node's replica, whose known leader a new client tries first; null on a client handle. */
  private final RaftServer.Division division;
  private final Duration attemptTimeout;
  private final Duration requestTimeout;
  private final Executor completions;
  /** Replaced when a request gave up. */
  private final AtomicReference<RaftClient> client = new AtomicReference<>();
  private volatile boolean closed;

  public LeaderClient(ReplicationGroup group, RaftGroupId groupId, RaftServer.Division division, Duration attemptTimeout,
      Duration requestTimeout, Executor completions) {
    this.group = group;
    this.groupId = groupId;
    this.division = division;
    this.attemptTimeout = attemptTimeout;
    this.requestTimeout = requestTimeout;
    this.completions = completions;
    client.set(newClient(knownLeader()));
  }

  /** The client requests go through now (membership changes use it too). */
  public RaftClient current() {
    return client.get();
  }

  /** A client whose first request goes to {@code leader} (null: Ratis's choice). */
  private RaftClient newClient(RaftPeerId leader) {
    RaftProperties p = new RaftProperties();
    // One attempt waits about one election for a reply, then the client tries the next replica;
    // the whole request gives up after requestTimeout.
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(attemptTimeout.toMillis(), TimeUnit.MILLISECONDS));
    int attempts = (int) Math.max(1, requestTimeout.toMillis() / RETRY_SLEEP.toMillis());
    RaftClient.Builder b = RaftClient.newBuilder()
        .setProperties(p)
        .setRaftGroup(group.votersGroup(groupId))
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts,
            TimeDuration.valueOf(RETRY_SLEEP.toMillis(), TimeUnit.MILLISECONDS)));
    if (leader != null && isVoter(leader)) {
      b.setLeaderId(leader);
    }
    return b.build();
  }

  private boolean isVoter(RaftPeerId id) {
    return group.voters().stream().anyMatch(v -> v.id().equals(id.toString()));
  }

  /** The leader this node's replica knows of, to send to first; null on a client handle or during an election. */
  private RaftPeerId knownLeader() {
    return division == null ? null : division.getInfo().getLeaderId();
  }

  /** The voter after {@code id} in the group's list, round: where to go after a replica that hosts no such group. */
  private RaftPeerId nextVoter(RaftPeerId id) {
    List<ReplicaPeer> voters = group.voters();
    for (int i = 0; i < voters.size(); i++) {
      if (id != null && voters.get(i).id().equals(id.toString())) {
        return RaftPeerId.valueOf(voters.get((i + 1) % voters.size()).id());
      }
    }
    return RaftPeerId.valueOf(voters.get(0).id());
  }

  /**
   * Runs {@code request} on the current client, replacing the client when the request gave up,
   * and tries again while the request's timeout allows when the replica it reached hosts no such
   * group: Ratis's client gives up on that at once, although another member (a replica that is
   * starting, was refused or lost its disk answers so) would take the request.
   */
  public CompletableFuture<RaftClientReply> send(Function<RaftClient, CompletableFuture<RaftClientReply>> request) {
    CompletableFuture<RaftClientReply> result = new CompletableFuture<>();
    attempt(request, System.nanoTime() + requestTimeout.toNanos(), result);
    return result.orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void attempt(Function<RaftClient, CompletableFuture<RaftClientReply>> request, long deadline,
      CompletableFuture<RaftClientReply> result) {
    RaftClient used = client.get();
    CompletableFuture<RaftClientReply> sent;
    try {
      sent = request.apply(used);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete((reply, error) -> {
      if (error == null) {
        result.complete(reply);
        return;
      }
      boolean noSuchGroup = causedBy(error, GroupMismatchException.class);
      renew(used, noSuchGroup ? nextVoter(used.getLeaderId()) : knownLeader());
      if (noSuchGroup && !closed && System.nanoTime() < deadline) {
        CompletableFuture.delayedExecutor(RETRY_SLEEP.toMillis(), TimeUnit.MILLISECONDS, completions)
            .execute(() -> attempt(request, deadline, result));
      } else {
        result.completeExceptionally(error);
      }
    });
  }

  private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private void renew(RaftClient failed, RaftPeerId leader) {
    if (closed) {
      return;
    }
    RaftClient fresh = newClient(leader);
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

  /** The reply's bytes, or the failure as one of this module's typed errors. */
  public byte[] content(RaftClientReply reply, Throwable error, String what) {
    if (error != null) {
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      throw new ReplicaUnavailableException("replicated database '" + group.database() + "': the " + what
          + " found no leader within its timeout (" + cause + "); a commit may or may not have been applied", cause);
    }
    if (!reply.isSuccess()) {
      if (reply.getStateMachineException() != null && reply.getStateMachineException().getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new ReplicaUnavailableException("replicated database '" + group.database() + "': the " + what + " failed: " + reply.getException(),
          reply.getException());
    }
    return reply.getMessage().getContent().toByteArray();
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(client.get());
  }
}
