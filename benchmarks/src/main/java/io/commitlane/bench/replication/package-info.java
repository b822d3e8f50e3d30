/**
 * {@code ./commitlane replication}: {@link io.commitlane.bench.replication.ReplicationBench}, in four parts (throughput,
 * failover, catch-up, soak) on three voters in this JVM ({@link io.commitlane.bench.replication.ReplicaLoopback}), with the
 * etcd peer ({@link io.commitlane.bench.replication.EtcdCluster}).
 */
package io.commitlane.bench.replication;
