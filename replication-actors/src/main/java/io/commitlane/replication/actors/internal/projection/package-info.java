/**
 * INTERNAL API. The projection runner's store on a replicated database. Entry point:
 * {@link io.commitlane.replication.actors.internal.projection.ReplicatedProjectionStore}: records from the replica's
 * change feed, a batch's writes and its position committed together through Raft.
 */
package io.commitlane.replication.actors.internal.projection;
