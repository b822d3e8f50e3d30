package io.commitlane.txlog;

/**
 * A snapshot of a log's counters. Counts of records and fsyncs start at zero when the log opens.
 *
 * @param segmentFiles segment files on disk
 * @param totalBytes their total size
 * @param recordsWritten records appended since open
 * @param bytesWritten frame bytes written since open (records and abort markers)
 * @param recordsRecovered records found by recovery at open
 * @param uncommittedCount appended records that have neither finished nor aborted
 * @param watermarkLagRecords appended records at or above the committed watermark (unfinished
 *     ones and finished ones waiting for an earlier record)
 * @param abortedRecords records marked aborted (known to this instance, including recovered)
 * @param corruptFrames corrupt frames found by recovery at open
 * @param fsyncs forces of segment data done for {@link Durability#FSYNC} group commit
 * @param recordsPerFsync records covered per such force, 0 if none
 * @param filesKeptUnflushed sealed segment files that hold records at or above the flushed
 *     position, so purge must keep them
 * @param committedWatermark see {@link TransactionLog#committedWatermark()}
 * @param flushedPosition see {@link TransactionLog#flushedPosition()}
 * @param durablePosition every byte below it is forced ({@link Durability#FSYNC} only, else 0)
 */
public record LogStats(
    int segmentFiles,
    long totalBytes,
    long recordsWritten,
    long bytesWritten,
    long recordsRecovered,
    int uncommittedCount,
    int watermarkLagRecords,
    long abortedRecords,
    long corruptFrames,
    long fsyncs,
    double recordsPerFsync,
    int filesKeptUnflushed,
    long committedWatermark,
    long flushedPosition,
    long durablePosition) {}
