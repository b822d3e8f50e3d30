/**
 * INTERNAL API. The definitions of the cluster module's settings: {@link
 * io.commitlane.cluster.internal.config.ClusterKeys} lists each key of {@code commitlane.cluster}
 * (key, Java field, range, doc line) as a storage {@code Setting}. {@code ClusterSettings} reads
 * its config and checks its fields through them; their defaults are in this module's {@code
 * reference.conf}.
 */
package io.commitlane.cluster.internal.config;
