package io.commitlane.replication;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * Asks replicas over the network, through Ratis's admin API, which groups they host and how each
 * is doing: every replica at once, each given {@link #TIMEOUT} to answer.
 *
 * <p>Why: the first question a process asks also pays for loading and starting gRPC and Netty
 * and for opening the connection, measured at 0.6-3.8 s on a loaded 2-core machine, and a
 * healthy replica must not be reported as not answering because of it. So the deadline is
 * generous (only a replica that is frozen or cut off ever waits it out; a stopped one refuses
 * the connection at once), the replicas are asked in parallel, and one client per replica is kept
 * for the probe's life, so a check polled in a loop reuses warm connections.
 */
final class GroupProbe implements AutoCloseable {
  /** How long one replica has to answer one question. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** The group the probe's clients name: any but Ratis's reserved empty one; no replica hosts it. */
  private static final RaftGroupId CLIENT_GROUP =
      RaftGroupId.valueOf(java.util.UUID.nameUUIDFromBytes("commitlane-replica-probe".getBytes(java.nio.charset.StandardCharsets.UTF_8)));

  /** One client per replica, by {@code id@address}: a replica's address can change between questions. */
  private final Map<String, RaftClient> clients = new ConcurrentHashMap<>();
  private final ExecutorService askers;
  private volatile boolean closed;

  GroupProbe(String owner) {
    AtomicInteger threads = new AtomicInteger();
    this.askers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "commitlane-replica-" + owner + "-probe-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** What one replica answered: the groups of the database it hosts, or why it did not answer. */
  record Answer(RaftPeer peer, List<GroupInfoReply> groups, String error) {
    boolean reachable() {
      return error == null;
    }
  }

  /** Each of {@code peers} as it reports group {@code groupId} now. */
  List<ReplicaReport> reports(RaftGroupId groupId, List<RaftPeer> peers) {
    return ask(peers, peer -> {
      String id = peer.getId().toString();
      try {
        return GroupStatus.report(id, client(peer).getGroupManagementApi(peer.getId()).info(groupId));
      } catch (GroupMismatchException e) {
        return ReplicaReport.unreachable(id, "it hosts no replica of this group (" + e.getMessage() + ")");
      }
    }, (peer, error) -> ReplicaReport.unreachable(peer.getId().toString(), error));
  }

  /** Which groups of {@code database} each of {@code peers} hosts, with each group's configuration, role and log. */
  List<Answer> groupsOf(String database, List<RaftPeer> peers) {
    return ask(peers, peer -> {
      RaftClient c = client(peer);
      List<GroupInfoReply> groups = new ArrayList<>();
      for (RaftGroupId id : c.getGroupManagementApi(peer.getId()).list().getGroupIds()) {
        if (ReplicationGroup.isGroupOf(id, database)) {
          try {
            groups.add(c.getGroupManagementApi(peer.getId()).info(id));
          } catch (GroupMismatchException e) {
            // removed between the two questions: it hosts it no more
          }
        }
      }
      return new Answer(peer, groups, null);
    }, (peer, error) -> new Answer(peer, List.of(), error));
  }

  @FunctionalInterface
  private interface Question<T> {
    T ask(RaftPeer peer) throws IOException;
  }

  @FunctionalInterface
  private interface NoAnswer<T> {
    T of(RaftPeer peer, String error);
  }

  /** Asks every peer at once; a peer that has not answered within the timeout is reported as such. */
  private <T> List<T> ask(List<RaftPeer> peers, Question<T> question, NoAnswer<T> noAnswer) {
    List<CompletableFuture<T>> asked = new ArrayList<>(peers.size());
    for (RaftPeer peer : peers) {
      asked.add(CompletableFuture.supplyAsync(() -> {
        try {
          return question.ask(peer);
        } catch (IOException | RuntimeException e) {
          return noAnswer.of(peer, e.toString());
        }
      }, askers));
    }
    // A little past the calls' own deadline: a call that times out reports its own error.
    long deadline = System.nanoTime() + TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(500);
    List<T> answers = new ArrayList<>(peers.size());
    for (int i = 0; i < peers.size(); i++) {
      try {
        answers.add(asked.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException | CancellationException e) {
        answers.add(noAnswer.of(peers.get(i), "no answer within " + TIMEOUT.toMillis() + " ms"));
      } catch (ExecutionException e) {
        answers.add(noAnswer.of(peers.get(i), String.valueOf(e.getCause())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        answers.add(noAnswer.of(peers.get(i), "interrupted while waiting for its answer"));
      }
    }
    return answers;
  }

  private RaftClient client(RaftPeer peer) {
    if (closed) {
      throw new IllegalStateException("the status client is closed");
    }
    return clients.computeIfAbsent(peer.getId() + "@" + peer.getAddress(), key -> {
      RaftProperties p = new RaftProperties();
      RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
      // Admin questions name their group; the client's own group only carries the peer's address.
      return RaftClient.newBuilder().setProperties(p)
          .setRaftGroup(RaftGroup.valueOf(CLIENT_GROUP, RaftPeer.newBuilder(peer).build()))
          .setRetryPolicy(RetryPolicies.noRetry()).build();
    });
  }

  @Override
  public void close() {
    closed = true;
    askers.shutdownNow();
    for (RaftClient c : clients.values()) {
      try {
        c.close();
      } catch (IOException e) {
        // closing a client only releases its connections
      }
    }
    clients.clear();
  }
}
