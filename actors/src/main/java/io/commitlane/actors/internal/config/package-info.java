/**
 * INTERNAL API. Reading {@code commitlane { ... }} into settings. Entry point: {@link
 * io.commitlane.actors.internal.config.PipelineSettingsReader}, which reads a database's section
 * into {@link io.commitlane.actors.PipelineSettings} through {@link
 * io.commitlane.actors.internal.config.ConfigSection} (every key read with what it allows, every
 * problem collected); {@link io.commitlane.actors.internal.config.SettingKeys} refuses unknown
 * keys; {@link io.commitlane.actors.internal.config.RocksDbTuningReader} reads the RocksDB tuning.
 * The definitions this module owns: {@link io.commitlane.actors.internal.config.PipelineKeys} (a
 * database's), {@link io.commitlane.actors.internal.config.StreamKeys} ({@code commitlane.stream},
 * read by {@code IngestSettings} and {@code CommitFlowSettings}) and {@link
 * io.commitlane.actors.internal.config.ProjectionKeys} ({@code commitlane.projection}, read by
 * {@code ProjectionSettings}).
 */
package io.commitlane.actors.internal.config;
