/**
 * INTERNAL API. Status of a group: this replica's own view and every replica asked over the network. Entry point:
 * {@link io.commitlane.replication.internal.status.GroupStatus}; {@link io.commitlane.replication.internal.status.GroupProbe}
 * asks the replicas.
 */
package io.commitlane.replication.internal.status;
