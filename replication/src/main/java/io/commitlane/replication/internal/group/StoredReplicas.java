package io.commitlane.replication.internal.group;

import io.commitlane.replication.ForeignReplicaDirectoryException;
import io.commitlane.replication.ReplicaNode;
import io.commitlane.replication.ReplicationGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * The replicas in a node's directory, one directory each under {@code raft/}, named by its Raft
 * group id (Ratis's layout), each with its identity ({@link ReplicaIdentity}) beside Ratis's
 * files.
 *
 * <p>Ratis starts every replica directory it finds when the node's server is built, so what can
 * be checked without knowing the groups is checked before that ({@link #checkAll}): a directory
 * another node wrote, or one renamed to another group's id, stops the node from starting. Which
 * group a replica must belong to is only known when it is hosted; {@code ReplicaNode} checks that
 * then.
 */
public final class StoredReplicas {
  private final Path raft;
  private final String node;

  /** One replica directory; {@code identity} is null when none was written (an earlier version's directory). */
  public record Stored(RaftGroupId id, Path directory, ReplicaIdentity identity) {}

  public StoredReplicas(Path raft, String node) {
    this.raft = raft;
    this.node = node;
  }

  /** The directory of group {@code id}'s replica. */
  Path directory(RaftGroupId id) {
    return raft.resolve(id.getUuid().toString());
  }

  /**
   * Checks every replica directory's identity against this node and the directory's name.
   *
   * @throws ForeignReplicaDirectoryException for the first directory that is not this node's
   */
  public void checkAll() {
    for (Stored s : all()) {
      ReplicaIdentity identity = s.identity();
      if (identity == null) {
        continue; // an earlier version's directory: checked against its group when hosted
      }
      if (!identity.node().equals(node)) {
        throw new ForeignReplicaDirectoryException(s.directory(), "holds " + identity + ", not a replica of this node ("
            + node + "): it was copied or moved from node " + identity.node());
      }
      if (!identity.group().equals(s.id()) || !ReplicationGroup.isGroupOf(s.id(), identity.database())) {
        throw new ForeignReplicaDirectoryException(s.directory(), "is named for group " + s.id().getUuid() + " but holds "
            + identity);
      }
    }
  }

  /**
   * This node's replica directories of {@code database}: those whose identity names it, and
   * those without one whose name is one of its group ids (usually none or one).
   */
  public List<Stored> of(String database) {
    List<Stored> found = new ArrayList<>();
    for (Stored s : all()) {
      if (s.identity() != null ? s.identity().database().equals(database) : ReplicationGroup.isGroupOf(s.id(), database)) {
        found.add(s);
      }
    }
    return found;
  }

  /** Writes {@code identity} into its replica's directory. */
  public void write(ReplicaIdentity identity) {
    try {
      identity.writeTo(directory(identity.group()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the identity of " + identity + " into " + directory(identity.group()), e);
    }
  }

  private List<Stored> all() {
    List<Stored> stored = new ArrayList<>();
    if (!Files.isDirectory(raft)) {
      return stored;
    }
    try (Stream<Path> dirs = Files.list(raft)) {
      for (Path dir : dirs.filter(Files::isDirectory).toList()) {
        RaftGroupId id = groupId(dir.getFileName().toString());
        if (id != null) {
          stored.add(new Stored(id, dir, ReplicaIdentity.readFrom(dir)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the replicas in " + raft, e);
    }
    return stored;
  }

  /** The group id a directory is named for, or null if its name is not one (Ratis ignores it too). */
  private static RaftGroupId groupId(String name) {
    try {
      return RaftGroupId.valueOf(UUID.fromString(name));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
