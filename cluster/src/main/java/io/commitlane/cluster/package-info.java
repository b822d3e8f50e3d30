/**
 * Databases spread over a Pekko cluster, one owner node per database: the API.
 * Entry point: {@link io.commitlane.cluster.DatabaseSharding} (registers {@link io.commitlane.cluster.ShardedDatabase}
 * with Cluster Sharding and sends it requests); settings in {@link io.commitlane.cluster.ClusterSettings}. The entity's
 * lifecycle, the owner lock and request routing are under {@code internal}.
 */
package io.commitlane.cluster;
