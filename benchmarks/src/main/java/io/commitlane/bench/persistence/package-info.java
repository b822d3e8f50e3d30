/**
 * {@code ./commitlane persistence}: {@link io.commitlane.bench.persistence.PersistenceBench}, commitlane's Pekko Persistence
 * plugins against the peers' (PostgreSQL via {@link io.commitlane.bench.persistence.PostgresCluster}, H2, LevelDB), one
 * {@link io.commitlane.bench.persistence.PersistencePeer} each.
 */
package io.commitlane.bench.persistence;
