/**
 * INTERNAL API. The durable-state store plugin's logic over a PluginStore. Entry point:
 * {@link io.commitlane.persistence.internal.state.DurableStates} (revision-checked upserts and deletes, reads, changes by tag).
 */
package io.commitlane.persistence.internal.state;
