/**
 * INTERNAL API. The definitions of the replication module's settings: {@link
 * io.commitlane.replication.internal.config.ReplicationKeys} lists each key of {@code
 * commitlane.replication} (key, Java field, range, doc line) as a storage {@code Setting}. {@code
 * ReplicaNodeSettings} reads its config and checks its fields through them; their defaults are in
 * this module's {@code reference.conf}.
 */
package io.commitlane.replication.internal.config;
