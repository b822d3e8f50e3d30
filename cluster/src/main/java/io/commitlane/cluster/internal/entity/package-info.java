/**
 * INTERNAL API. The lifecycle of one sharded database entity, one behavior per phase: {@link
 * io.commitlane.cluster.internal.entity.Opening} (takes the owner lock and opens the database, attempts in
 * {@link io.commitlane.cluster.internal.entity.OpenAttempt}), {@link io.commitlane.cluster.internal.entity.Open}
 * (serves requests), {@link io.commitlane.cluster.internal.entity.Closing} (closes, then releases the lock); requests it
 * cannot serve are refused by {@link io.commitlane.cluster.internal.entity.Refused}. Entry point: ShardedDatabase's
 * behavior, which starts in Opening with a {@link io.commitlane.cluster.internal.entity.DatabaseEntity}.
 */
package io.commitlane.cluster.internal.entity;
