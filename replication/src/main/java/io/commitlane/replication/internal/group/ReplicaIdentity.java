package io.commitlane.replication.internal.group;

import io.commitlane.replication.ForeignReplicaDirectoryException;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicationGroup;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * What a replica directory belongs to, written into it ({@value #FILE}) when the replica is
 * created: the database, the Raft group, the node, and the members the group had then. A node
 * refuses a directory whose identity names another node or group, so a directory copied from
 * elsewhere or left by another deployment is never served or let into a group.
 *
 * @param database the replicated database
 * @param group the Raft group id (also the directory's name)
 * @param node the node whose replica this is
 * @param members the group's members when the replica was created; null when not known (a
 *     replica that joined a running group, or a directory an earlier version wrote)
 * @param created when the identity was written
 * @param origin how the replica came to be
 */
public record ReplicaIdentity(String database, RaftGroupId group, String node, ReplicationGroup members, Instant created, Origin origin) {
  /** The identity's file, beside Ratis's {@code current/} and {@code sm/} in the replica's directory. */
  public static final String FILE = "replica-identity";

  public enum Origin {
    /** A new group formed by its members (or this node's empty replica of a group that has not changed its members). */
    CREATED,
    /** An empty replica of a running group, added by a member afterwards or catching up after its disk was lost. */
    JOINED,
    /** A directory written without an identity (by an earlier version), found to hold this node's replica and kept. */
    ADOPTED
  }

  /** Writes the identity into {@code dir}: under a temporary name, synced, then renamed, so it is whole or absent. */
  void writeTo(Path dir) throws IOException {
    Properties p = new Properties();
    p.setProperty("database", database);
    p.setProperty("group", group.getUuid().toString());
    p.setProperty("node", node);
    p.setProperty("created", created.toString());
    p.setProperty("origin", origin.name());
    if (members != null) {
      p.setProperty("voters", format(members.voters()));
      p.setProperty("listeners", format(members.listeners()));
    }
    StringWriter text = new StringWriter();
    p.store(text, "commitlane replica identity: which replica this directory holds; do not edit or copy");
    Path tmp = dir.resolve(FILE + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      out.write(text.toString().getBytes(StandardCharsets.ISO_8859_1));
    }
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true); // the rename itself
    } catch (IOException e) {
      // not every file system syncs a directory; the identity is written again if it goes missing
    }
  }

  /**
   * The identity in {@code dir}, or null when it has none.
   *
   * @throws ForeignReplicaDirectoryException if the file cannot be read as an identity
   */
  public static ReplicaIdentity readFrom(Path dir) {
    Path file = dir.resolve(FILE);
    if (!Files.exists(file)) {
      return null;
    }
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
      Properties p = new Properties();
      p.load(in);
      String database = require(p, "database");
      ReplicationGroup members = p.containsKey("voters")
          ? new ReplicationGroup(database, parse(p.getProperty("voters")), parse(p.getProperty("listeners", ""))) : null;
      return new ReplicaIdentity(database, RaftGroupId.valueOf(UUID.fromString(require(p, "group"))), require(p, "node"),
          members, Instant.parse(require(p, "created")), Origin.valueOf(require(p, "origin")));
    } catch (IOException | RuntimeException e) {
      throw new ForeignReplicaDirectoryException(dir, "has a damaged identity file " + FILE + " (" + e.getMessage() + ")");
    }
  }

  private static String require(Properties p, String key) {
    String v = p.getProperty(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("no " + key);
    }
    return v;
  }

  private static String format(List<ReplicaPeer> peers) {
    return peers.stream().map(p -> p.id() + "=" + p.address()).collect(Collectors.joining(","));
  }

  private static List<ReplicaPeer> parse(String spec) {
    List<ReplicaPeer> peers = new ArrayList<>();
    for (String s : spec.split(",")) {
      if (s.isBlank()) {
        continue;
      }
      String[] idAddress = s.split("=", 2);
      int colon = idAddress[1].lastIndexOf(':');
      peers.add(new ReplicaPeer(idAddress[0], idAddress[1].substring(0, colon), Integer.parseInt(idAddress[1].substring(colon + 1))));
    }
    return peers;
  }

  @Override
  public String toString() {
    return "node " + node + "'s replica of '" + database + "' (group " + group.getUuid() + ", " + origin.name().toLowerCase()
        + " " + created + (members == null ? "" : " with " + members.members()) + ")";
  }
}
