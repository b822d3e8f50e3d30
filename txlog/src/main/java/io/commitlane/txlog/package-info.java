/**
 * commitlane's transaction log: an append-only sequence of records in segment files, with a
 * committed watermark, readers, flush correlation with RocksDB, durability and retention. This
 * package holds the API only: {@link io.commitlane.txlog.TransactionLog} (the entry point: open,
 * append, finish, abort, replay, purge, copy), what a database user sees of it ({@link
 * io.commitlane.txlog.LogView}, {@link io.commitlane.txlog.LogReader}), {@link
 * io.commitlane.txlog.LogSettings}, {@link io.commitlane.txlog.LogInspector} and the typed errors.
 *
 * <p>The machinery lives under {@code io.commitlane.txlog.internal}: {@code append} (one write
 * path per {@link io.commitlane.txlog.AppendMode}, and the watermarks), {@code segment} (the
 * on-disk format: frames, segments, the flushed-position file, the directory claim, retention,
 * copies), {@code recovery} (the scan at open and crash replay) and {@code fs} (the file-system
 * seam tests inject faults through).
 */
package io.commitlane.txlog;
