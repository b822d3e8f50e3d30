package io.commitlane.replication.internal.transport;

import io.commitlane.replication.ReplicaNode;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.server.RaftServer;
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
 * <p>INTERNAL API: {@code ReplicaNode} marks a replica around its start; the transport reads it.
 */
public final class StartingReplicas {
  /** The key of the node's instance in the Raft server's {@code Parameters}. */
  public static final String PARAMETER = "commitlane.replication.starting-replicas";

  private final Set<RaftGroupId> starting = ConcurrentHashMap.newKeySet();
  private final Set<RaftGroupId> stopping = ConcurrentHashMap.newKeySet();
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
    stopping.add(group);
  }

  /** Its stop returned (or failed). */
  public void stopped(RaftGroupId group) {
    stopping.remove(group);
  }

  /** The node is closing: every replica's incoming entries are turned away from now on. */
  public void closing() {
    closing = true;
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
