/**
 * INTERNAL API. Serves the database protocol's requests against a replicated database handle. Entry point:
 * {@link io.commitlane.replication.actors.internal.protocol.ReplicatedRequests}, called by ReplicatedDatabaseActor on
 * the actor's thread; each request gets one reply, told from whichever thread finishes it (the actor's for a replica's
 * reads, the blocking-I/O dispatcher's for a client's reads through the leader, the handle's completion threads after a
 * commit or a read barrier).
 */
package io.commitlane.replication.actors.internal.protocol;
