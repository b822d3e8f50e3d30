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
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * A replicated database: its name and the nodes that hold a replica of it (its Raft group's
 * voters). Every node derives the same group id from the name, so the group needs no registry.
 */
public record ReplicationGroup(String database, List<ReplicaPeer> voters) {
  public ReplicationGroup {
    Objects.requireNonNull(database, "database");
    voters = List.copyOf(voters);
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
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  public static ReplicationGroup of(String database, ReplicaPeer... voters) {
    return new ReplicationGroup(database, List.of(voters));
  }

  RaftGroupId groupId() {
    return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("commitlane-replicated:" + database).getBytes(StandardCharsets.UTF_8)));
  }

  RaftGroup raftGroup() {
    return RaftGroup.valueOf(groupId(), voters.stream()
        .map(p -> RaftPeer.newBuilder().setId(RaftPeerId.valueOf(p.id())).setAddress(p.address()).build())
        .toList());
  }

  boolean hasVoter(String id) {
    return voters.stream().anyMatch(p -> p.id().equals(id));
  }
}
