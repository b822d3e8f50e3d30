/**
 * INTERNAL API. What the replicated log carries and what a replica records about it: one transaction
 * ({@link io.commitlane.replication.internal.entry.ReplicatedCommit}), several in one entry
 * ({@link io.commitlane.replication.internal.entry.CommitBatch}), and the keys of the replica's own records
 * ({@link io.commitlane.replication.internal.entry.ReplicaRecords}). Entry point on the sending side:
 * {@link io.commitlane.replication.internal.entry.CommitBatcher}, which groups a handle's commits into entries.
 */
package io.commitlane.replication.internal.entry;
