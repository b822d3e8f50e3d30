package io.commitlane.replication.internal.group;

import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.replication.internal.status.GroupProbe;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;

/**
 * Which group of a database its replicas run, and with which members, as they answered a {@link
 * GroupProbe}: what a new replica joins and what a node's or a client's list of members is
 * checked against.
 *
 * @param id the group's Raft id
 * @param members its members as the answering replica's configuration has them
 * @param where which replica said so, for error messages
 * @param fromLeader whether that replica leads the group (its configuration is the newest)
 * @param hostedBy the replicas that answered hosting it
 */
public record RunningGroup(RaftGroupId id, ReplicationGroup members, String where, boolean fromLeader, List<String> hostedBy) {

  /**
   * The group of {@code database} that {@code answers} show: the one a leader reports, else the
   * one most replicas host; null when no replica answered hosting one with members (none is
   * running, or none could be reached).
   *
   * @throws ReplicaUnavailableException if replicas host different groups of the database and
   *     none of them leads, so which one runs cannot be told yet
   */
  public static RunningGroup of(String database, List<GroupProbe.Answer> answers) {
    Map<RaftGroupId, List<String>> hosts = new LinkedHashMap<>();
    Map<RaftGroupId, RunningGroup> best = new LinkedHashMap<>();
    for (GroupProbe.Answer a : answers) {
      for (GroupInfoReply info : a.groups()) {
        ReplicationGroup members = members(database, info);
        if (members == null) {
          continue; // an empty replica waiting to be added: it knows no members
        }
        RaftGroupId id = info.getRaftGroupId();
        String peer = a.peer().getId().toString();
        hosts.computeIfAbsent(id, k -> new ArrayList<>()).add(peer);
        boolean leads = info.getRoleInfoProto().getRole() == RaftPeerRole.LEADER;
        RunningGroup seen = best.get(id);
        if (seen == null || (leads && !seen.fromLeader())) {
          best.put(id, new RunningGroup(id, members, "as replica " + peer + (leads ? ", the leader," : "") + " has them", leads, List.of()));
        }
      }
    }
    if (best.isEmpty()) {
      return null;
    }
    List<RunningGroup> led = best.values().stream().filter(RunningGroup::fromLeader).toList();
    RunningGroup chosen;
    if (led.size() == 1) {
      chosen = led.get(0);
    } else {
      int most = hosts.values().stream().mapToInt(List::size).max().orElse(0);
      List<RaftGroupId> top = hosts.entrySet().stream().filter(e -> e.getValue().size() == most).map(Map.Entry::getKey).toList();
      if (top.size() != 1 || led.size() > 1) {
        throw new ReplicaUnavailableException("replicated database '" + database + "': replicas run different groups of it ("
            + hosts.entrySet().stream().map(e -> e.getKey().getUuid() + " on " + e.getValue()).collect(Collectors.joining("; "))
            + ") and none leads alone; start the group's replicas, move the other group's directories away, and try again");
      }
      chosen = best.get(top.get(0));
    }
    List<String> by = new ArrayList<>(hosts.get(chosen.id()));
    by.sort(Comparator.naturalOrder());
    return new RunningGroup(chosen.id(), chosen.members(), chosen.where(), chosen.fromLeader(), List.copyOf(by));
  }

  /**
   * The members a replica's answer gives: its configuration, or (Ratis 3.2.2 leaves that out of
   * the answer) its group's peers, voters and listeners told apart by their roles.
   */
  static ReplicationGroup members(String database, GroupInfoReply info) {
    if (info.getConf().isPresent()) {
      return ReplicationGroup.of(database, info.getConf().get());
    }
    List<RaftPeer> voters = new ArrayList<>();
    List<RaftPeer> listeners = new ArrayList<>();
    for (RaftPeer p : info.getGroup().getPeers()) {
      (p.getStartupRole() == RaftPeerRole.LISTENER ? listeners : voters).add(p);
    }
    return ReplicationGroup.of(database, voters, listeners);
  }
}
