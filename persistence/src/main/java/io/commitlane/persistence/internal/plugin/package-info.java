/**
 * INTERNAL API. A plugin instance's start. Entry point: {@link io.commitlane.persistence.internal.plugin.PluginStart}: it
 * reads the {@link io.commitlane.persistence.internal.plugin.PluginSettings} and leases its database's store from
 * {@link io.commitlane.persistence.internal.plugin.PluginStores} (one per path and actor system, drained by coordinated
 * shutdown); payloads go through {@link io.commitlane.persistence.internal.plugin.PayloadCodec}.
 */
package io.commitlane.persistence.internal.plugin;
