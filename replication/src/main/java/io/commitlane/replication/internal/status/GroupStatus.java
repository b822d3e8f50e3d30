package io.commitlane.replication.internal.status;

import io.commitlane.replication.ReplicaReport;
import io.commitlane.replication.ReplicaStatus;
import io.commitlane.replication.ReplicatedDatabase;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.LogInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.SnapshotInfo;


/**
 * What a replicated database reports about its replicas: this replica's own view ({@link
 * ReplicatedDatabase#status}), and every replica asked over the network ({@link
 * ReplicatedDatabase#groupStatus}).
 */
public final class GroupStatus {
  private GroupStatus() {}

  /** This replica's view of itself and its group. */
  public static ReplicaStatus of(String database, RaftServer.Division division) {
    DivisionInfo info = division.getInfo();
    RaftPeerId leader = info.getLeaderId();
    Map<String, Long> matches = new LinkedHashMap<>();
    long[] indexes = info.isLeader() ? info.getFollowerMatchIndices() : null;
    if (indexes != null) {
      List<RaftPeerProto> followers = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList()
          .stream().map(f -> f.getId()).toList();
      for (int i = 0; i < followers.size() && i < indexes.length; i++) {
        matches.put(followers.get(i).getId().toStringUtf8(), indexes[i]);
      }
    }
    SnapshotInfo snapshot = division.getStateMachine().getLatestSnapshot();
    RaftPeerRole role = info.getCurrentRole();
    return new ReplicaStatus(database, division.getId().toString(), role.name(), leader == null ? null : leader.toString(),
        info.getCurrentTerm(), info.getLastAppliedIndex(), snapshot == null ? 0 : snapshot.getIndex(),
        division.getRaftLog().getStartIndex(), matches);
  }

  /** Replica {@code peerId} as its answer to a group-info question describes it. */
  static ReplicaReport report(String peerId, GroupInfoReply info) {
    RoleInfoProto role = info.getRoleInfoProto();
    String leader = switch (role.getRole()) {
      case LEADER -> peerId;
      case FOLLOWER, LISTENER -> role.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8();
      default -> null;
    };
    LogInfoProto log = info.getLogInfoProto();
    return new ReplicaReport(peerId, true, role.getRole().name(), leader == null || leader.isEmpty() ? null : leader,
        log.getLastEntry().getTerm(), log.getLastEntry().getIndex(), log.getCommitted().getIndex(),
        log.getApplied().getIndex(), log.getLastSnapshot().getIndex(), null);
  }
}
