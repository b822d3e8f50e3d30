/**
 * INTERNAL API. Sending requests to entities: the size a request may have to cross nodes
 * ({@link io.commitlane.cluster.internal.routing.FrameLimit}, the entry point) and entity names
 * ({@link io.commitlane.cluster.internal.routing.Names}).
 */
package io.commitlane.cluster.internal.routing;
