/**
 * {@code ./commitlane backup ...} ({@link io.commitlane.bench.backup.BackupCommand}) and {@code ./commitlane backup-bench}
 * ({@link io.commitlane.bench.backup.BackupBench}).
 */
package io.commitlane.bench.backup;
