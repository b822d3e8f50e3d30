package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.replication.internal.group.Membership;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * A replicated database: its name and the nodes that hold a replica of it. Voters elect the
 * leader and a commit needs a majority of them; listeners receive and apply every commit but do
 * not vote, so they add replicas to read from (local reads, change feeds) without slowing commits
 * or changing the majority.
 *
 * <p>Every node derives the same Raft group id from the name and the members (ids and addresses),
 * so the group needs no registry, and two groups of the same name with different members are
 * different groups: a node given another list than the others cannot join theirs, nor take their
 * commits. Membership changes ({@link ReplicatedDatabase#addReplica}, ...) keep the group's id;
 * after one, give nodes and clients the group as it is now, and they find its id from its
 * replicas.
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

  /**
   * The Raft group id a group with these members starts with: its first half from the database
   * name (so a replica can tell which database a group id belongs to), its second from the
   * members, in any order.
   */
  RaftGroupId groupId() {
    return RaftGroupId.valueOf(new UUID(nameHash(database), hash("commitlane-members:" + database + "\n" + members())));
  }

  /** Whether {@code id} is the id of a group of {@code database}: derived by this version, or by an earlier one. */
  @InternalApi public static boolean isGroupOf(RaftGroupId id, String database) {
    return id.getUuid().getMostSignificantBits() == nameHash(database) || id.equals(legacyGroupId(database));
  }

  /**
   * The id earlier versions derived from the name alone. Their replica directories keep it: a
   * group's id cannot change while its replicas run.
   */
  static RaftGroupId legacyGroupId(String database) {
    return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("commitlane-replicated:" + database).getBytes(StandardCharsets.UTF_8)));
  }

  private static long nameHash(String database) {
    return hash("commitlane-replicated:" + database);
  }

  private static long hash(String s) {
    try {
      return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8))).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** This group's members with the Raft group id {@code id} (which membership changes keep). */
  @InternalApi public RaftGroup raftGroup(RaftGroupId id) {
    List<RaftPeer> peers = new ArrayList<>();
    voters.forEach(p -> peers.add(raftPeer(p, RaftPeerRole.FOLLOWER)));
    listeners.forEach(p -> peers.add(raftPeer(p, RaftPeerRole.LISTENER)));
    return RaftGroup.valueOf(id, peers);
  }

  /** The voters only, for a client: listeners never lead, so a request sent to one is a wasted attempt. */
  @InternalApi public RaftGroup votersGroup(RaftGroupId id) {
    return RaftGroup.valueOf(id, voters.stream().map(p -> raftPeer(p, RaftPeerRole.FOLLOWER)).toList());
  }

  @InternalApi public static RaftPeer raftPeer(ReplicaPeer p, RaftPeerRole role) {
    return RaftPeer.newBuilder().setId(RaftPeerId.valueOf(p.id())).setAddress(p.address()).setStartupRole(role).build();
  }

  /**
   * The group {@code database} as a Raft configuration has it (its current voters and listeners),
   * or null when the configuration is empty: a replica that joined and was not added yet.
   */
  @InternalApi public static ReplicationGroup of(String database, RaftConfigurationProto conf) {
    if (conf.getPeersCount() == 0) {
      return null;
    }
    return new ReplicationGroup(database, conf.getPeersList().stream().map(ReplicationGroup::replicaPeer).toList(),
        conf.getListenersList().stream().map(ReplicationGroup::replicaPeer).toList());
  }

  /** The group {@code database} as {@code voters} and {@code listeners} (Ratis peers) have it; null when there are no voters. */
  @InternalApi public static ReplicationGroup of(String database, Collection<RaftPeer> voters, Collection<RaftPeer> listeners) {
    if (voters.isEmpty()) {
      return null;
    }
    return new ReplicationGroup(database, voters.stream().map(ReplicationGroup::replicaPeer).toList(),
        listeners.stream().map(ReplicationGroup::replicaPeer).toList());
  }

  private static ReplicaPeer replicaPeer(RaftPeerProto p) {
    return peer(p.getId().toStringUtf8(), p.getAddress());
  }

  private static ReplicaPeer replicaPeer(RaftPeer p) {
    return peer(p.getId().toString(), p.getAddress());
  }

  private static ReplicaPeer peer(String id, String address) {
    int colon = address == null ? -1 : address.lastIndexOf(':');
    try {
      return new ReplicaPeer(id, address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    } catch (RuntimeException e) {
      throw new IllegalStateException("replica " + id + " has the address '" + address + "', which is not host:port", e);
    }
  }

  /** Whether {@code other} has the same voters and listeners (ids and addresses), in any order. */
  @InternalApi public boolean sameMembers(ReplicationGroup other) {
    return members().equals(other.members());
  }

  /** The voters and listeners as {@code id=host:port}, each list sorted by id: what a group id is derived from. */
  @InternalApi public String members() {
    return "voters " + list(voters) + (listeners.isEmpty() ? "" : ", listeners " + list(listeners));
  }

  private static String list(List<ReplicaPeer> peers) {
    return peers.stream().sorted(Comparator.comparing(ReplicaPeer::id)).map(p -> p.id() + "=" + p.address())
        .collect(Collectors.joining(", ", "[", "]"));
  }

  /** Whether node {@code id} holds a replica of the group, as a voter or a listener. */
  boolean hasMember(String id) {
    return voters.stream().anyMatch(p -> p.id().equals(id)) || listeners.stream().anyMatch(p -> p.id().equals(id));
  }
}
