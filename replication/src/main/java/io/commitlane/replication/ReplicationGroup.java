package io.commitlane.replication;

import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * A replicated database: its name and the nodes that hold a replica of it. Voters elect the
 * leader and a commit needs a majority of them; listeners receive and apply every commit but do
 * not vote, so they add replicas to read from (local reads, change feeds) without slowing commits
 * or changing the majority. Every node derives the same group id from the name, so the group
 * needs no registry.
 */
public record ReplicationGroup(String database, List<ReplicaPeer> voters, List<ReplicaPeer> listeners) {
  public ReplicationGroup {
    Objects.requireNonNull(database, "database");
    voters = List.copyOf(voters);
    listeners = List.copyOf(listeners);
    List<SettingError> errors = new ArrayList<>();
    if (database.isBlank()) {
      errors.add(new SettingError("database", database, "a name that is not blank"));
    }
    if (voters.isEmpty()) {
      errors.add(new SettingError("voters", "none", "at least one (three survive the loss of one)"));
    }
    Set<String> ids = new HashSet<>();
    for (ReplicaPeer p : voters) {
      if (!ids.add(p.id())) {
        errors.add(new SettingError("voters", p.id(), "each replica once"));
      }
    }
    for (ReplicaPeer p : listeners) {
      if (!ids.add(p.id())) {
        errors.add(new SettingError("listeners", p.id(), "each replica once, and not also a voter"));
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  /** A group of voters only. */
  public ReplicationGroup(String database, List<ReplicaPeer> voters) {
    this(database, voters, List.of());
  }

  public static ReplicationGroup of(String database, ReplicaPeer... voters) {
    return new ReplicationGroup(database, List.of(voters));
  }

  /** This group with {@code listeners} as its non-voting replicas. */
  public ReplicationGroup withListeners(ReplicaPeer... listeners) {
    return new ReplicationGroup(database, voters, List.of(listeners));
  }

  RaftGroupId groupId() {
    return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("commitlane-replicated:" + database).getBytes(StandardCharsets.UTF_8)));
  }

  RaftGroup raftGroup() {
    List<RaftPeer> peers = new ArrayList<>();
    voters.forEach(p -> peers.add(raftPeer(p, RaftPeerRole.FOLLOWER)));
    listeners.forEach(p -> peers.add(raftPeer(p, RaftPeerRole.LISTENER)));
    return RaftGroup.valueOf(groupId(), peers);
  }

  private static RaftPeer raftPeer(ReplicaPeer p, RaftPeerRole role) {
    return RaftPeer.newBuilder().setId(RaftPeerId.valueOf(p.id())).setAddress(p.address()).setStartupRole(role).build();
  }

  /** Whether node {@code id} holds a replica of the group, as a voter or a listener. */
  boolean hasMember(String id) {
    return voters.stream().anyMatch(p -> p.id().equals(id)) || listeners.stream().anyMatch(p -> p.id().equals(id));
  }
}
