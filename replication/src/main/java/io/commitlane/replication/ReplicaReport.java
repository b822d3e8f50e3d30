package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;

/**
 * One replica of a group as it answered a status request from outside ({@link
 * ReplicatedDatabase#groupStatus()}).
 *
 * @param replica the node's id
 * @param reachable whether it answered; the other fields are 0 or null when it did not
 * @param role LEADER, FOLLOWER, CANDIDATE or LISTENER
 * @param leader the leader's id as this replica knows it, or null
 * @param term the term of its last log entry
 * @param lastIndex the index of its last log entry
 * @param committedIndex the last index it knows a majority holds
 * @param appliedIndex the last index it applied to its database
 * @param snapshotIndex the index of its latest snapshot (0: none)
 * @param error why it did not answer, or null
 */
public record ReplicaReport(
    String replica,
    boolean reachable,
    String role,
    String leader,
    long term,
    long lastIndex,
    long committedIndex,
    long appliedIndex,
    long snapshotIndex,
    String error) {

  @InternalApi public static ReplicaReport unreachable(String replica, String error) {
    return new ReplicaReport(replica, false, null, null, 0, 0, 0, 0, 0, error);
  }
}
