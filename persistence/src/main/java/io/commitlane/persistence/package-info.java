/**
 * Pekko Persistence plugins on commitlane: a journal, a snapshot store, a durable-state store and
 * a read journal, each configured by a plugin id in {@code reference.conf}. See docs/persistence.md.
 */
package io.commitlane.persistence;
