package io.commitlane.actors.stream;

/**
 * What an ingestion {@link Ingest#sink} did. Counts cover every batch whose outcome the sink
 * saw; batches are reported in stream order.
 *
 * @param records records committed
 * @param bytes their weight, per {@link RecordWriter#bytes}
 * @param transactions batches committed (one transaction each)
 * @param failedRecords records in batches that failed for good (nothing of those batches was written)
 * @param failedTransactions batches that failed for good
 * @param committedPrefix every record with a stream index below this is committed: where to
 *     resume after a failure (records at or after it may be partly committed, see the counts)
 * @param firstFailure the cause of the first failed batch, or null if none failed
 */
public record IngestTotals(long records, long bytes, long transactions, long failedRecords, long failedTransactions,
    long committedPrefix, Throwable firstFailure) {

  public static final IngestTotals EMPTY = new IngestTotals(0, 0, 0, 0, 0, 0, null);

  /** Records that reached the sink's committer and got an outcome. */
  public long recordsSeen() {
    return records + failedRecords;
  }

  @Override
  public String toString() {
    return "IngestTotals[" + records + " records (" + bytes + " bytes) in " + transactions + " transactions, "
        + failedRecords + " records in " + failedTransactions + " failed transactions, committed prefix " + committedPrefix
        + (firstFailure == null ? "" : ", first failure: " + firstFailure) + "]";
  }
}
