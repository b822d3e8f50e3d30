/**
 * INTERNAL API. The definitions of the storage module's settings: {@link
 * io.commitlane.storage.internal.settings.StorageKeys} lists each one (key, Java field, range, doc
 * line) as a {@link io.commitlane.storage.internal.settings.Setting}. {@code CommitlaneSettings},
 * {@code RocksDbWal} and {@code RocksDbTuning} check their fields through them; the actors module's
 * config reader reads {@code commitlane { }} through them.
 */
package io.commitlane.storage.internal.settings;
