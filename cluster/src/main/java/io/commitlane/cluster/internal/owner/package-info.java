/**
 * INTERNAL API. One owner per database directory: the owner lock ({@link io.commitlane.cluster.internal.owner.OwnerLock},
 * the entry point), the owner epoch it hands out ({@link io.commitlane.cluster.internal.owner.OwnerEpoch}), and an open
 * database with its lock ({@link io.commitlane.cluster.internal.owner.OwnerSession}).
 */
package io.commitlane.cluster.internal.owner;
