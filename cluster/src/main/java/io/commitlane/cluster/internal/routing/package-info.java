/**
 * INTERNAL API. Sending requests to entities: the size a request may have to cross nodes
 * ({@link io.commitlane.cluster.internal.routing.FrameLimit}), entity names
 * ({@link io.commitlane.cluster.internal.routing.Names}), and the asks waiting for their reply
 * ({@link io.commitlane.cluster.internal.routing.PendingAsks}, the entry point DatabaseSharding's requests go through).
 */
package io.commitlane.cluster.internal.routing;
