/**
 * Replicated databases over Apache Ratis: the API. A node hosts replicas ({@link io.commitlane.replication.ReplicaNode},
 * configured by {@link io.commitlane.replication.ReplicaNodeSettings}); a {@link io.commitlane.replication.ReplicatedDatabase}
 * handle (from a node, or a client that holds no replica) opens {@link io.commitlane.replication.ReplicatedTransaction}s;
 * a {@link io.commitlane.replication.ReplicaChangeFeed} reads its transaction logs. The machinery is under
 * {@code internal}, one package per role.
 *
 * <p>A commit's hand-offs, in order: {@code ReplicatedTransaction.commit} encodes the transaction
 * ({@code internal.entry.ReplicatedCommit}) on the caller's thread; the handle's {@code internal.entry.CommitBatcher}
 * sends it alone or in a batch entry once fewer entries are in flight; {@code internal.client.LeaderClient} sends the
 * entry to the leader through the Ratis client (retrying through elections); Raft replicates it; on every replica
 * Ratis's apply thread runs {@code internal.apply.ReplicaStateMachine.applyTransaction}, whose
 * {@code internal.apply.ReplicaApplier} validates and writes it in log order; the leader's reply
 * ({@code internal.apply.ApplyOutcome}) completes the caller's {@link io.commitlane.replication.CommitReceipt} on the
 * handle's completions executor.
 */
package io.commitlane.replication;
