package io.commitlane.replication.internal.transport;

import io.commitlane.replication.ReplicaNode;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * Ratis's gRPC transport as replicas run it, with three changes.
 *
 * <p>Two on the leader, both for a follower whose next entries the leader purged, which Ratis
 * 3.2.2 stops sending to for good (a node that was down while the others purged the segment it
 * ended in never caught up):
 *
 * <ul>
 *   <li>a follower whose next entry is the first one the leader's log still holds receives a
 *       snapshot: Ratis sends entries there and finds no term for the entry before them (purged,
 *       and not the snapshot's);
 *   <li>when a purge removes the follower's next entries between the appender's check for a
 *       snapshot and its read of the entries, the appender sends nothing that turn and installs
 *       the snapshot on the next: Ratis lets the read's error stop the appender.
 * </ul>
 *
 * Later Ratis versions install the snapshot in the first case too; remove these when both are
 * fixed in the version in use.
 *
 * <p>One on every server: a replica that is still starting turns the leader's entries away
 * quietly ({@link StartingReplicas}), instead of Ratis logging each at ERROR with a stack trace.
 *
 * <p>INTERNAL API: selected by {@code ReplicaNode} through Ratis's {@code raft.rpc.type}, which
 * takes a class name; the replicas that are starting reach the transport through the server's
 * {@link Parameters} ({@link StartingReplicas#PARAMETER}).
 */
public final class ReplicaRpcType implements RpcType {
  public ReplicaRpcType() {
    // Ratis creates it by reflection from its class name
  }

  @Override
  public String name() {
    return ReplicaRpcType.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory(parameters);
  }

  private static final class Factory extends GrpcFactory {
    private final StartingReplicas starting;

    public Factory(Parameters parameters) {
      super(parameters);
      StartingReplicas given = parameters == null ? null : parameters.get(StartingReplicas.PARAMETER, StartingReplicas.class);
      this.starting = given == null ? new StartingReplicas() : given;
    }

    @Override
    public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      return new Appender(server, state, follower);
    }

    @Override
    public GrpcServices newRaftServerRpc(RaftServer server) {
      return super.newRaftServerRpc(starting.guard(server));
    }
  }

  private static final class Appender extends GrpcLogAppender {
    public Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      super(server, state, follower);
    }

    @Override
    public SnapshotInfo shouldInstallSnapshot() {
      SnapshotInfo snapshot = super.shouldInstallSnapshot();
      if (snapshot != null) {
        return snapshot;
      }
      long next = getFollower().getNextIndex();
      if (next <= RaftLog.LEAST_VALID_LOG_INDEX || next >= getRaftLog().getNextIndex()) {
        return null;
      }
      SnapshotInfo latest = getServer().getStateMachine().getLatestSnapshot();
      boolean previousKnown = getRaftLog().getTermIndex(next - 1) != null
          || (latest != null && latest.getIndex() == next - 1);
      return previousKnown ? null : latest;
    }

    @Override
    public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat) throws RaftLogIOException {
      try {
        return super.newAppendEntriesRequest(callId, heartbeat);
      } catch (RaftLogIOException e) {
        if (getFollower().getNextIndex() < getRaftLog().getStartIndex()) {
          return null; // purged since shouldInstallSnapshot looked: the next turn sends the snapshot
        }
        throw e;
      }
    }
  }
}
