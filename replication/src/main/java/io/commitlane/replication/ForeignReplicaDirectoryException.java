package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.CommitlaneException;
import java.nio.file.Path;

/**
 * A replica directory under a node's directory is not this node's replica of the group it is
 * hosting: it was written by another node, belongs to another group of the same database (another
 * deployment, or a group with other members), or its identity file is damaged. The node did not
 * start that replica, so it neither served the directory's data nor took part in the group with
 * it; nothing was changed on disk.
 *
 * <p>Move the directory away: a node without a replica of the group joins it as an empty replica
 * and catches up from the leader (by a snapshot if needed).
 */
public final class ForeignReplicaDirectoryException extends CommitlaneException {
  private final Path directory;

  @InternalApi public ForeignReplicaDirectoryException(Path directory, String why) {
    super("replica directory " + directory + " " + why + "; move it away to start this node's replica empty (it then"
        + " catches up from the group's leader)");
    this.directory = directory;
  }

  /** The replica directory that was refused. */
  public Path directory() {
    return directory;
  }
}
