package io.commitlane.replication.internal;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * Ratis's gRPC transport with one change on the leader: a follower whose next entry is the first
 * one the leader's log still holds receives a snapshot, instead of entries the leader cannot
 * send. Ratis 3.2.2 sends entries there, finds no term for the entry before them (purged, and
 * not the snapshot's), and stops sending to that follower for good: a node that was down while
 * the others purged the segment it ended in never caught up. Later Ratis versions install the
 * snapshot in that case too; remove this class when moving to one.
 *
 * <p>INTERNAL API: selected by {@code ReplicaNode} through Ratis's {@code raft.rpc.type}, which
 * takes a class name.
 */
public final class SnapshotCatchUpRpcType implements RpcType {
  public SnapshotCatchUpRpcType() {
    // Ratis creates it by reflection from its class name
  }

  @Override
  public String name() {
    return SnapshotCatchUpRpcType.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory(parameters);
  }

  private static final class Factory extends GrpcFactory {
    Factory(Parameters parameters) {
      super(parameters);
    }

    @Override
    public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      return new Appender(server, state, follower);
    }
  }

  private static final class Appender extends GrpcLogAppender {
    Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
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
  }
}
