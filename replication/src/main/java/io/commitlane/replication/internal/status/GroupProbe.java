package io.commitlane.replication.internal.status;

import io.commitlane.replication.ReplicaReport;
import io.commitlane.replication.ReplicationGroup;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
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
 * is doing: every replica at once; once one has answered, each other has {@link #TIMEOUT} more
 * to answer.
 *
 * <p>Why: the first question a process asks also pays for loading and starting gRPC and Netty
 * and for opening the connection, measured at 0.6-3.8 s on a loaded 2-core machine and more on a
 * busier one, and a healthy replica must not be reported as not answering because of it. That
 * cost is the asking process's, shared by every replica it asks, so the clock that decides "no
 * answer" starts when the first replica answered (or refused: a stopped replica refuses the
 * connection at once): by then this process's client is running, and a replica still silent
 * {@link #TIMEOUT} later is frozen or cut off. Until a first answer the probe waits up to {@link
 * #FIRST_ANSWER}. Host names are resolved once, before the question, and the client is given the
 * literal address, so no name resolution runs inside a question's deadline. One client per replica
 * is kept for the probe's life, so a check polled in a loop reuses warm connections.
 */
public final class GroupProbe implements AutoCloseable {
  /** How long one replica has to answer one question. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** How long the probe waits for the first answer of any replica: its own start and the first connections. */
  static final Duration FIRST_ANSWER = Duration.ofSeconds(20);

  /** The group the probe's clients name: any but Ratis's reserved empty one; no replica hosts it. */
  private static final RaftGroupId CLIENT_GROUP =
      RaftGroupId.valueOf(java.util.UUID.nameUUIDFromBytes("commitlane-replica-probe".getBytes(java.nio.charset.StandardCharsets.UTF_8)));

  /** One client per replica, by {@code id@address}: a replica's address can change between questions. */
  private final Map<String, RaftClient> clients = new ConcurrentHashMap<>();
  private final ExecutorService askers;
  private volatile boolean closed;

  public GroupProbe(String owner) {
    AtomicInteger threads = new AtomicInteger();
    this.askers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "commitlane-replica-" + owner + "-probe-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** What one replica answered: the groups of the database it hosts, or why it did not answer. */
  public record Answer(RaftPeer peer, List<GroupInfoReply> groups, String error) {
    public boolean reachable() {
      return error == null;
    }
  }

  /** Each of {@code peers} as it reports group {@code groupId} now. */
  public List<ReplicaReport> reports(RaftGroupId groupId, List<RaftPeer> peers) {
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
  public List<Answer> groupsOf(String database, List<RaftPeer> peers) {
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
  interface Question<T> {
    T ask(RaftPeer peer) throws IOException;
  }

  @FunctionalInterface
  interface NoAnswer<T> {
    T of(RaftPeer peer, String error);
  }

  /**
   * Asks every peer at once; a peer that has not answered {@link #TIMEOUT} after the first answer
   * (or {@link #FIRST_ANSWER} after the question, when none answered) is reported as such. No
   * peers (a one-node group asking its other members) is no question: no first answer to wait for.
   */
  <T> List<T> ask(List<RaftPeer> peers, Question<T> question, NoAnswer<T> noAnswer) {
    if (peers.isEmpty()) {
      return List.of();
    }
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
    // The clock for "no answer" starts once any replica answered: this process's client is running by then.
    long deadline = System.nanoTime() + FIRST_ANSWER.toNanos();
    try {
      CompletableFuture.anyOf(asked.toArray(new CompletableFuture<?>[0])).get(FIRST_ANSWER.toNanos(), TimeUnit.NANOSECONDS);
      deadline = System.nanoTime() + TIMEOUT.toNanos();
    } catch (TimeoutException | ExecutionException | CancellationException e) {
      // none answered within FIRST_ANSWER: each is reported below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<T> answers = new ArrayList<>(peers.size());
    for (int i = 0; i < peers.size(); i++) {
      try {
        answers.add(asked.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException | CancellationException e) {
        answers.add(noAnswer.of(peers.get(i), "no answer within " + TIMEOUT.toMillis() + " ms of the first replica's answer"
            + " (or within " + FIRST_ANSWER.toSeconds() + " s, when none answered)"));
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
      // The probe decides when a replica has not answered (see ask); a call's own deadline only bounds it.
      RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(FIRST_ANSWER.plus(TIMEOUT).toMillis(), TimeUnit.MILLISECONDS));
      // Admin questions name their group; the client's own group only carries the peer's address, a literal one.
      return RaftClient.newBuilder().setProperties(p)
          .setRaftGroup(RaftGroup.valueOf(CLIENT_GROUP, RaftPeer.newBuilder(peer).setAddress(literal(peer.getAddress())).build()))
          .setRetryPolicy(RetryPolicies.noRetry()).build();
    });
  }

  /**
   * {@code host:port} with the host as a literal IP address, resolved here once, so gRPC's name
   * resolver has nothing to look up; unchanged when it does not resolve (the question then says why).
   */
  static String literal(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      return address;
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      return address; // an IPv6 literal already
    }
    try {
      InetAddress resolved = InetAddress.getByName(host);
      String ip = resolved.getHostAddress();
      return (resolved instanceof Inet6Address ? "[" + ip + "]" : ip) + address.substring(colon);
    } catch (UnknownHostException e) {
      return address;
    }
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
