/**
 * INTERNAL API. The on-disk formats of backups: where a backup directory keeps what ({@link
 * io.commitlane.storage.internal.backup.BackupLayout}, the entry point), its checksum manifest and
 * metadata file, and the copying of what commitlane keeps beside RocksDB's files (store-drop
 * records, transaction logs) into checkpoints, backups and restores ({@link
 * io.commitlane.storage.internal.backup.SideFiles}). The operations themselves (take, verify,
 * restore, list, checkpoint) are run by {@code BackupStore} and {@code Database} in the root
 * package, whose package-private handles on the open database they need.
 */
package io.commitlane.storage.internal.backup;
