/**
 * INTERNAL API. How records get into a log's segments and how their completion moves the
 * committed watermark: one {@link io.commitlane.txlog.internal.append.Appender} (the entry point,
 * chosen by {@code TransactionLog.open}) per {@link io.commitlane.txlog.AppendMode}.
 *
 * <ul>
 *   <li>SERIALIZED ({@link io.commitlane.txlog.internal.append.SerializedAppender}): on the
 *       appending thread, under the append lock: claim the position, write the frame; {@code
 *       finish} moves the watermark; under FSYNC a force thread ({@link
 *       io.commitlane.txlog.internal.append.AppendDurability}, {@link
 *       io.commitlane.txlog.internal.append.GroupCommitter}) forces what was written.
 *   <li>LEADERLESS ({@link io.commitlane.txlog.internal.append.LeaderlessAppender} over {@link
 *       io.commitlane.txlog.internal.append.LeaderlessBuffers}): on the appending thread, claim
 *       position and byte range in one short critical section, copy the frame into the active
 *       buffer without a lock; a sync (whichever caller gets there) swaps the buffers and writes
 *       outside the lock; completions are published out of order through {@link
 *       io.commitlane.txlog.internal.append.LinkBufWatermark}; under FSYNC the same force
 *       thread forces it.
 *   <li>ACTOR ({@link io.commitlane.txlog.internal.append.ActorAppender}): on the appending
 *       thread, claim position and timestamp and queue the frame ({@link
 *       io.commitlane.txlog.internal.append.WriterQueue}); on the writer ({@link
 *       io.commitlane.txlog.internal.append.LogWriterHost}: the transaction-log actor, or a
 *       {@link io.commitlane.txlog.internal.append.WriterThread} of the log's own), {@link
 *       io.commitlane.txlog.internal.append.BatchWriter} writes the batch, forces it once under
 *       FSYNC, applies finishes and abort markers to the watermark in queue order, then completes
 *       the acknowledgements after letting go of the writer role.
 * </ul>
 * {@link io.commitlane.txlog.internal.append.CommitWatermark} holds the committed watermark, its
 * waiting readers and the flush correlation with RocksDB's sequence ({@link
 * io.commitlane.txlog.internal.append.FlushCorrelation}).
 */
package io.commitlane.txlog.internal.append;
