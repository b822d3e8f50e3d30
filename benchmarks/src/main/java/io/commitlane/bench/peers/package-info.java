/**
 * Peers measured beside commitlane by several subcommands: raw rocksdbjni ({@link io.commitlane.bench.peers.RawOptimisticVariant},
 * {@link io.commitlane.bench.peers.RawWriteBatchVariant}, {@link io.commitlane.bench.peers.RawOptimisticAsyncPeer}) and LMDB
 * ({@link io.commitlane.bench.peers.LmdbPutVariant}, {@link io.commitlane.bench.peers.LmdbAppendVariant}). Peers one
 * subcommand uses alone live in its package (etcd in {@code replication}, PostgreSQL, H2 and LevelDB in
 * {@code persistence}, the read peers in {@code read}).
 */
package io.commitlane.bench.peers;
