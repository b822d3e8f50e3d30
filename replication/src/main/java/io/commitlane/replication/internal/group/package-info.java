/**
 * INTERNAL API. Which group a replica belongs to and who its members are: membership changes
 * ({@link io.commitlane.replication.internal.group.Membership}, the entry point), the group the replicas run
 * ({@link io.commitlane.replication.internal.group.RunningGroup}), and the identity written into each replica directory
 * ({@link io.commitlane.replication.internal.group.ReplicaIdentity}, checked on start by
 * {@link io.commitlane.replication.internal.group.StoredReplicas}).
 */
package io.commitlane.replication.internal.group;
