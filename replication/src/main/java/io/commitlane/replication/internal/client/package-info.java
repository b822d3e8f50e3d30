/**
 * INTERNAL API. How a handle reaches its group: requests routed to the leader
 * ({@link io.commitlane.replication.internal.client.LeaderClient}, the entry point: retries through elections, renewal
 * after a request gave up, reply decoding), and where a transaction's reads come from
 * ({@link io.commitlane.replication.internal.client.SnapshotReads}: this node's replica, or the leader for a client
 * without one, answered by {@link io.commitlane.replication.internal.client.ReadQuery}).
 */
package io.commitlane.replication.internal.client;
