package io.commitlane.actors;

import io.commitlane.storage.RocksDbStats;
import io.commitlane.storage.StorageStats;
import org.HdrHistogram.Histogram;

/**
 * A snapshot of one database's pipeline. Latencies are in nanoseconds, since the previous
 * snapshot (each snapshot takes the interval): {@code queueWait} from admission to an executor
 * taking the commit, {@code execution} from there to the outcome being delivered.
 *
 * @param queueDepth commits admitted and not yet taken by an executor, plus places held for granted admission tickets
 * @param inFlight commits admitted and not yet completed
 * @param executorsStarted commit executors started since open (at most commitThreads; in two-lane
 *     mode, plus the log lane)
 * @param executorsIdle executors waiting for work right now
 * @param admitted commits admitted since open
 * @param committed commits that succeeded
 * @param conflicts commits refused by validation
 * @param failed commits that failed otherwise
 * @param overloaded commits refused because the queue was full
 * @param retries attempts the async retry helper made after a conflict
 * @param storage the storage counters
 * @param logs each transaction log's stats by name; a log's {@code uncommittedCount} is its queue
 *     of records appended and not yet finished (appends run on the committing thread, so the log
 *     has no queue of its own)
 * @param groupSize members per merged write group, since the previous snapshot (groups written,
 *     their members and the conflicts inside them since open are in {@code storage})
 * @param requestIds the request ids the database remembers, and those it forgot or refused
 * @param rocksDb what RocksDB reports: pending compaction, memtables, live SST files, block cache,
 *     write stalls, running flushes and compactions (the health is in {@code storage})
 * @param writeLaneDepth in two-lane mode, commits the log lane validated and logged that wait for a
 *     commit thread to write them (bounded by the queue's capacity); 0 in other modes
 * @param unappliedLogRecords of a read-only handle, per transaction log: the records a normal open
 *     would replay (past the log's flushed position, not held by RocksDB), which a read-only open
 *     does not apply, so its reads lack their writes; counted at open. Empty for a writable handle,
 *     whose open replayed them
 */
public record PipelineStats(
    int queueDepth,
    long inFlight,
    int executorsStarted,
    int executorsIdle,
    long admitted,
    long committed,
    long conflicts,
    long failed,
    long overloaded,
    long retries,
    Histogram queueWait,
    Histogram execution,
    StorageStats storage,
    java.util.Map<String, io.commitlane.txlog.LogStats> logs,
    Histogram groupSize,
    RequestIdStats requestIds,
    RocksDbStats rocksDb,
    int writeLaneDepth,
    java.util.Map<String, Long> unappliedLogRecords) {
  public PipelineStats {
    unappliedLogRecords = java.util.Map.copyOf(unappliedLogRecords);
  }

  /** The records, over every log, that a read-only open did not apply; 0 for a writable handle. */
  public long unappliedLogRecordsTotal() {
    return unappliedLogRecords.values().stream().mapToLong(Long::longValue).sum();
  }

  /** A one-line summary: counts and the latencies' p50/p99, not the histograms' buckets. */
  @Override
  public String toString() {
    return "PipelineStats[queue " + queueDepth + ", in flight " + inFlight + ", executors " + executorsStarted + " (" + executorsIdle
        + " idle), admitted " + admitted + ", committed " + committed + ", conflicts " + conflicts + ", failed " + failed
        + ", overloaded " + overloaded + ", retries " + retries + ", queue wait " + micros(queueWait) + ", execution "
        + micros(execution) + (writeLaneDepth == 0 ? "" : ", write lane " + writeLaneDepth)
        + (unappliedLogRecords.isEmpty() ? "" : ", not applied (read-only) " + unappliedLogRecords)
        + (logs.isEmpty() ? "" : ", logs " + logs.keySet()) + "]";
  }

  private static String micros(Histogram h) {
    if (h == null || h.getTotalCount() == 0) {
      return "-";
    }
    return String.format(java.util.Locale.ROOT, "p50 %.1f µs p99 %.1f µs (%d)", h.getValueAtPercentile(50) / 1e3,
        h.getValueAtPercentile(99) / 1e3, h.getTotalCount());
  }
}
