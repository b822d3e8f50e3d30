/**
 * INTERNAL API. The persistence plugins' store on a replicated database. Entry point: {@link
 * io.commitlane.persistence.replicated.internal.ReplicatedPluginStoreFactory}, found by {@code commitlane-persistence}
 * when a plugin's settings hold a {@code replicated} section; it hosts this node's replica and gives the plugins a
 * {@link io.commitlane.persistence.replicated.internal.ReplicatedPluginStore}: writes through Raft with their
 * expectations checked in log order, positions assigned by the log, reads of the local replica after a read barrier.
 */
package io.commitlane.persistence.replicated.internal;
