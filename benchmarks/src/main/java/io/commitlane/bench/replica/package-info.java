/**
 * {@code ./commitlane replica run|status|add|remove}: {@link io.commitlane.bench.replica.ReplicaCommand}; a running node
 * serves its status on {@link io.commitlane.bench.replica.ReplicaStatusEndpoint}.
 */
package io.commitlane.bench.replica;
