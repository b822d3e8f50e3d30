/**
 * Pekko Persistence plugins on commitlane: a journal ({@link io.commitlane.persistence.CommitlaneJournal}), a snapshot store
 * ({@link io.commitlane.persistence.CommitlaneSnapshotStore}), a durable-state store and
 * a read journal, each configured by a plugin id in {@code reference.conf}. See docs/persistence.md.
 */
package io.commitlane.persistence;
