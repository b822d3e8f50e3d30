package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.CommitlaneException;

/**
 * A node or a client was given other members for a replicated database than its group has
 * agreed on (its Raft configuration, which membership changes move on): the replica was not
 * started, or the client not connected, and nothing was written. Two groups of the same name
 * with different members would each take commits the other never sees, so this is refused
 * rather than guessed.
 *
 * <p>Give the node the group as {@link #agreed()} has it (after a membership change, its members
 * now), or, if {@link #given()} is right, change the group's membership, from a replica or a client
 * given the group as it is now ({@link ReplicatedDatabase#addReplica}, {@link
 * ReplicatedDatabase#removeReplica}; {@code ./commitlane replica add|remove}).
 */
public final class MembershipMismatchException extends CommitlaneException {
  private final ReplicationGroup given;
  private final ReplicationGroup agreed;

  @InternalApi public MembershipMismatchException(ReplicationGroup given, ReplicationGroup agreed, String where, String refused) {
    super("replicated database '" + given.database() + "': " + refused + " was given " + given.members()
        + ", but the group's agreed members (" + where + ") are " + agreed.members()
        + "; give it the group's members, or change the membership (replica add or remove) with the group as it is now");
    this.given = given;
    this.agreed = agreed;
  }

  /** The group as the node or client was given it. */
  public ReplicationGroup given() {
    return given;
  }

  /** The group as its replicas have agreed on it. */
  public ReplicationGroup agreed() {
    return agreed;
  }
}
