/**
 * {@code ./commitlane cluster} and its {@code host}, {@code node} and {@code failover} subcommands: entry
 * {@link io.commitlane.bench.cluster.ClusterBench}; nodes on loopback ({@link io.commitlane.bench.cluster.LoopbackCluster}),
 * the sharded load ({@link io.commitlane.bench.cluster.ShardedWriteLoad}), failover with real processes
 * ({@link io.commitlane.bench.cluster.FailoverBench}).
 */
package io.commitlane.bench.cluster;
