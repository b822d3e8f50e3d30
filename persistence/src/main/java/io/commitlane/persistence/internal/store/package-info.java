/**
 * INTERNAL API. The seam between the plugins and a database. Entry point:
 * {@link io.commitlane.persistence.internal.store.PluginStore}: one conditional
 * {@link io.commitlane.persistence.internal.store.StoreWrite} per commit, over the key layout of
 * {@link io.commitlane.persistence.internal.store.Keys}; {@link io.commitlane.persistence.internal.store.LocalPluginStore}
 * is the local database's, a replicated one comes from a {@link io.commitlane.persistence.internal.store.PluginStoreFactory}
 * (ServiceLoader; module persistence-replicated). {@link io.commitlane.persistence.internal.store.Positions} claims commit
 * positions for a local store and keeps the watermark of settled ones.
 */
package io.commitlane.persistence.internal.store;
