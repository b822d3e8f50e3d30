/**
 * INTERNAL API. The machinery of the Pekko Persistence plugins, one package per role (plugin, store, journal,
 * snapshot, state, query), in the order a request meets it:
 *
 * <ol>
 *   <li>{@link io.commitlane.persistence.internal.plugin.PluginStart}: a plugin instance (journal, snapshot store, state store,
 *       read journal) reads its {@link io.commitlane.persistence.internal.plugin.PluginSettings} and leases its database's
 *       {@link io.commitlane.persistence.internal.store.PluginStore} from {@link io.commitlane.persistence.internal.plugin.PluginStores}
 *       (one per path and actor system; drained by coordinated shutdown).
 *   <li>The logic of each plugin: {@link io.commitlane.persistence.internal.journal.EventJournal}, {@link
 *       io.commitlane.persistence.internal.snapshot.Snapshots}, {@link io.commitlane.persistence.internal.state.DurableStates}, {@link
 *       io.commitlane.persistence.internal.query.EventQueries}, over the key layout of {@link
 *       io.commitlane.persistence.internal.store.Keys}.
 *   <li>{@link io.commitlane.persistence.internal.store.PluginStore}: the seam to a database, one conditional
 *       {@link io.commitlane.persistence.internal.store.StoreWrite} per commit; {@link
 *       io.commitlane.persistence.internal.store.LocalPluginStore} is the local database's (a transaction on the commit
 *       executors, appended to the plugins' transaction log); a replicated database's store comes from a {@link
 *       io.commitlane.persistence.internal.store.PluginStoreFactory} (module persistence-replicated) when the settings hold a
 *       {@code replicated} section.
 *   <li>{@link io.commitlane.persistence.internal.store.Positions}: commit positions for the tag and change indexes and their
 *       watermark (claimed here for a local store, assigned by the log for a replicated one: a write carries references
 *       to its positions, which its store fills in); queries are {@link io.commitlane.persistence.internal.query.FollowSource}s that read below it and wake
 *       when it moves ({@link io.commitlane.persistence.internal.query.WriteSignals} for queries by persistence id).
 * </ol>
 */
package io.commitlane.persistence.internal;
