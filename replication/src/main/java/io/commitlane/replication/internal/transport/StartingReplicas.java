package io.commitlane.replication.internal.transport;

import io.commitlane.replication.ReplicaNode;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.ProtoUtils;

/**
 * The replicas of a node that are starting: added to the node's Raft server, not yet through
 * their start (their database opening, their log loading). A leader that already counts such a
 * replica as a member sends it entries meanwhile, and Ratis 3.2.2 answers each with a {@code
 * ServerNotReadyException} that it also logs at ERROR with a stack trace. The server's transport
 * ({@link ReplicaRpcType}) turns those requests away before they reach the replica, with the same
 * exception and without the ERROR: the leader retries, as it does anyway, once the replica is up.
 *
 * <p>Replicas found in the node's directory start before the server listens, so only replicas
 * created or restarted while it runs pass through here.
 *
 * <p>The same holds while replicas stop: Ratis takes about a second to close one, its leader's
 * heartbeats keep arriving meanwhile, and each would be logged at ERROR with a stack trace
 * ({@code ServerNotReadyException: ... current state is CLOSING}). A replica being stopped, and
 * every replica of a node that is closing, turns them away the same way.
 *
 * <p>Once a replica runs, client requests to it (commits, reads) skip one thread hop: the
 * transport submits them to the replica on its own thread ({@link #running}), where Ratis would
 * hand each to its client executor and wait for it there.
 *
 * <p>INTERNAL API: {@code ReplicaNode} marks a replica around its start; the transport reads it.
 */
public final class StartingReplicas {
  /** The key of the node's instance in the Raft server's {@code Parameters}. */
  public static final String PARAMETER = "commitlane.replication.starting-replicas";

  private final Set<RaftGroupId> starting = ConcurrentHashMap.newKeySet();
  private final Set<RaftGroupId> stopping = ConcurrentHashMap.newKeySet();
  /** Replicas that run, by group: client requests reach them on the transport's thread. */
  private final Map<RaftGroupId, RaftServer.Division> running = new ConcurrentHashMap<>();
  private volatile boolean closing;

  /** Marks {@code group}'s replica as starting, until {@link #started}. */
  public void starting(RaftGroupId group) {
    starting.add(group);
  }

  /** Its start returned (or failed): requests reach it again. */
  public void started(RaftGroupId group) {
    starting.remove(group);
  }

  /** {@code group}'s replica is being stopped, until {@link #stopped}: the leader's entries are turned away. */
  public void stopping(RaftGroupId group) {
    running.remove(group);
    stopping.add(group);
  }

  /** {@code group}'s replica runs as {@code division}: client requests go to it directly until it stops. */
  public void running(RaftGroupId group, RaftServer.Division division) {
    if (!closing && division instanceof RaftClientAsynchronousProtocol) {
      running.put(group, division);
    }
  }

  /** Its stop returned (or failed). */
  public void stopped(RaftGroupId group) {
    stopping.remove(group);
  }

  /** The node is closing: every replica's incoming entries are turned away from now on. */
  public void closing() {
    closing = true;
    running.clear();
  }

  /**
   * {@code server} as the transport sees it: the replication requests that would log an ERROR
   * on a starting replica (appending entries, installing a snapshot) fail at once with {@code
   * ServerNotReadyException} while it starts; everything else goes to {@code server} unchanged.
   */
  RaftServer guard(RaftServer server) {
    // A proxy of the whole interface: the transport calls a dozen of its methods, and only the
    // two kinds of request below need a look.
    InvocationHandler handler = (proxy, method, args) -> {
      if (args != null && args.length == 1 && args[0] instanceof RaftClientRequest request
          && method.getName().equals("submitClientRequestAsync")) {
        CompletableFuture<RaftClientReply> direct = submitDirectly(request);
        if (direct != null) {
          return direct;
        }
      }
      if (args != null && args.length == 1 && (closing || !starting.isEmpty() || !stopping.isEmpty())) {
        // Thrown, as Ratis's own check throws it: the transport answers a thrown error on every
        // request, a failed future only on those that carry entries.
        if (args[0] instanceof AppendEntriesRequestProto r && isStarting(r.getServerRequest())) {
          throw notReady(r.getServerRequest());
        }
        if (args[0] instanceof InstallSnapshotRequestProto r && isStarting(r.getServerRequest())) {
          throw notReady(r.getServerRequest());
        }
      }
      try {
        return method.invoke(server, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
    return (RaftServer) Proxy.newProxyInstance(RaftServer.class.getClassLoader(), new Class<?>[] {RaftServer.class}, handler);
  }

  /**
   * A client request (a commit, a read) submitted to its running replica on the calling thread,
   * or null when the replica is not known to run (the server then routes it as Ratis does).
   * Ratis's server hands each client request to its client executor and blocks the transport's
   * thread until the request is in the log (a hand-off added only to keep it off the common
   * pool); submitting it here does the same work in the same order without the thread hop.
   * Failures complete the stage as Ratis's route completes it.
   */
  private CompletableFuture<RaftClientReply> submitDirectly(RaftClientRequest request) {
    RaftServer.Division replica = closing ? null : running.get(request.getRaftGroupId());
    if (replica == null || replica.getInfo().getLifeCycleState() != LifeCycle.State.RUNNING) {
      return null;
    }
    try {
      return ((RaftClientAsynchronousProtocol) replica).submitClientRequestAsync(request);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e instanceof CompletionException ? e : new CompletionException(e));
    }
  }

  private boolean isStarting(RaftRpcRequestProto request) {
    RaftGroupId group = ProtoUtils.toRaftGroupId(request.getRaftGroupId());
    return closing || starting.contains(group) || stopping.contains(group);
  }

  private ServerNotReadyException notReady(RaftRpcRequestProto request) {
    RaftGroupId group = ProtoUtils.toRaftGroupId(request.getRaftGroupId());
    return new ServerNotReadyException(group + (starting.contains(group)
        ? ": this replica is starting; the leader retries once it is up" : ": this replica is stopping"));
  }
}
