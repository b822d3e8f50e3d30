/**
 * Replicated databases behind the actor protocol: the API. Entry points:
 * {@link io.commitlane.replication.actors.ReplicatedDatabaseActor} (an ActorRef that answers like a local DatabaseActor),
 * {@link io.commitlane.replication.actors.ConfiguredDatabaseActor} (local or replicated by configuration) and
 * {@link io.commitlane.replication.actors.ReplicatedProjection}.
 */
package io.commitlane.replication.actors;
