/**
 * INTERNAL API. The snapshot store plugin's logic over a PluginStore. Entry point:
 * {@link io.commitlane.persistence.internal.snapshot.Snapshots}.
 */
package io.commitlane.persistence.internal.snapshot;
