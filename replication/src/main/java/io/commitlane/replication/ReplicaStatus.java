package io.commitlane.replication;

import java.util.Map;

/**
 * One replica as it sees itself and its group.
 *
 * @param database the replicated database
 * @param replica this node's id
 * @param role LEADER, FOLLOWER, CANDIDATE or LISTENER
 * @param leader the leader's id as this replica knows it, or null during an election
 * @param term the current Raft term
 * @param appliedIndex the last log index this replica applied to its database
 * @param snapshotIndex the log index of its latest snapshot (0: none yet)
 * @param logStartIndex the first index its Raft log still holds: entries below it were purged
 *     after a snapshot (a replica that needs them receives the snapshot instead)
 * @param followerMatchIndexes on the leader, each follower's last index known to be in its log;
 *     empty elsewhere
 */
public record ReplicaStatus(
    String database,
    String replica,
    String role,
    String leader,
    long term,
    long appliedIndex,
    long snapshotIndex,
    long logStartIndex,
    Map<String, Long> followerMatchIndexes) {}
