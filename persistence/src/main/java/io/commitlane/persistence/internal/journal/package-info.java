/**
 * INTERNAL API. The journal plugin's logic over a PluginStore. Entry point:
 * {@link io.commitlane.persistence.internal.journal.EventJournal} (writes, replay, highest sequence number, deletes);
 * events are stored as {@link io.commitlane.persistence.internal.journal.EventRecord}s.
 */
package io.commitlane.persistence.internal.journal;
