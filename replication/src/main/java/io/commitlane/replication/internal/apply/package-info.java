/**
 * INTERNAL API. One replica's state machine: applies the group's log to the replica's RocksDB database.
 * Entry point: {@link io.commitlane.replication.internal.apply.ReplicaStateMachine} (Ratis calls it on its apply
 * thread), which hands each entry to {@link io.commitlane.replication.internal.apply.ReplicaApplier} (validation against
 * every commit before it, the write, the outcome as an {@link io.commitlane.replication.internal.apply.ApplyOutcome}),
 * takes and installs snapshots through {@link io.commitlane.replication.internal.apply.ReplicaSnapshots}, and wakes
 * waiters on the applied index ({@link io.commitlane.replication.internal.apply.AppliedWaiters}) on the completions
 * executor.
 */
package io.commitlane.replication.internal.apply;
