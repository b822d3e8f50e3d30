/**
 * INTERNAL API. Reading {@code commitlane { ... }} into settings. Entry point: {@link
 * io.commitlane.actors.internal.config.PipelineSettingsReader}, which reads a database's section
 * into {@link io.commitlane.actors.PipelineSettings} through {@link
 * io.commitlane.actors.internal.config.ConfigSection} (every key read with what it allows, every
 * problem collected); {@link io.commitlane.actors.internal.config.SettingKeys} refuses unknown
 * keys; {@link io.commitlane.actors.internal.config.RocksDbTuningReader} reads the RocksDB tuning.
 */
package io.commitlane.actors.internal.config;
