/**
 * INTERNAL API. Ratis's gRPC transport as replicas run it. Entry point:
 * {@link io.commitlane.replication.internal.transport.ReplicaRpcType} (set on the node's Raft server);
 * {@link io.commitlane.replication.internal.transport.StartingReplicas} tracks the replicas still starting, whose
 * requests the transport turns away quietly.
 */
package io.commitlane.replication.internal.transport;
