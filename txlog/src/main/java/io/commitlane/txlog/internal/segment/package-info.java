/**
 * INTERNAL API. A log's on-disk format and files: frames ({@link
 * io.commitlane.txlog.internal.segment.Frame}, {@link
 * io.commitlane.txlog.internal.segment.FrameEncoder}, {@link
 * io.commitlane.txlog.internal.segment.RecordCodec}), segment files and their headers, the set of
 * segments of one log ({@link io.commitlane.txlog.internal.segment.SegmentSet}, the entry point),
 * the persisted flushed position, the one-writer directory claim, retention (purge) and copies
 * for checkpoints and backups.
 */
package io.commitlane.txlog.internal.segment;
