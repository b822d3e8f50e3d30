/**
 * commitlane's embedded storage: a RocksDB database with optimistic transactions validated in
 * Java. This package holds the API only: {@link io.commitlane.storage.Database} (the entry point:
 * open, transact, commit, scan, stores, checkpoints), {@link io.commitlane.storage.Transaction},
 * {@link io.commitlane.storage.KeyRange} and {@link io.commitlane.storage.Cursor}, {@link
 * io.commitlane.storage.BackupStore}, the settings records and the typed errors; plus the
 * package-private machinery that needs the API types' own members (the shared per-path state
 * {@code SharedDatabase}, the store catalog and drops, reads and scans, group commits, backup and
 * checkpoint orchestration), which therefore stays beside them.
 *
 * <p>Types marked {@code @InternalApi} here ({@code InternalRecords}, {@code LogCapture},
 * {@code StoreClaims}) are public for commitlane's other modules only.
 *
 * <p>Machinery that stands alone lives under {@code io.commitlane.storage.internal}: {@code
 * commit} (validation, the version records, the write, hooks and the commit's JFR events), {@code
 * backup} (the on-disk formats of backups and the files copied beside RocksDB's), {@code files}
 * (what a database directory holds) and {@code rocks} (native plumbing shared across databases).
 */
package io.commitlane.storage;
