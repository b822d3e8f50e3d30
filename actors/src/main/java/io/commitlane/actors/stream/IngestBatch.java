package io.commitlane.actors.stream;

import java.util.List;

/**
 * One transaction's worth of ingested records: the correlation value of the {@link WriteOutcome}s
 * that {@link Ingest#flow} emits, and the tag of the batch's transactions (so stage listeners can
 * pick a batch out).
 *
 * @param number the batch's number in the stream, from 0
 * @param firstRecord the stream index (from 0) of the batch's first record; the batch holds the
 *     records {@code firstRecord .. firstRecord + size() - 1}
 * @param records the records, in stream order (unmodifiable)
 * @param bytes their weight, per {@link RecordWriter#bytes}
 */
public record IngestBatch<T>(long number, long firstRecord, List<T> records, long bytes) {
  public int size() {
    return records.size();
  }

  /** The index after the batch's last record. */
  public long endRecord() {
    return firstRecord + records.size();
  }

  @Override
  public String toString() {
    return "IngestBatch[#" + number + ", records " + firstRecord + ".." + (endRecord() - 1) + ", " + bytes + " bytes]";
  }
}
