package io.commitlane.txlog;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One transaction's record as read back from the log. Buffers are read-only slices of a mapped
 * segment or of a read buffer (no copy); they stay valid after the reader moves on.
 *
 * @param position where the record's frame starts
 * @param timestamp the caller's timestamp (millis), as given to {@link TransactionLog#append}
 * @param transactionId the caller's transaction id
 * @param flags the caller's flags, 0..65535
 * @param entries the caller's log entries, in order
 * @param writes the caller's opaque replay bytes, or {@code null} if it gave none
 */
public record LogRecord(
    long position,
    long timestamp,
    long transactionId,
    int flags,
    List<ByteBuffer> entries,
    ByteBuffer writes) {

  @Override
  public String toString() {
    return "LogRecord[" + LogPosition.toString(position) + " ts=" + timestamp + " txn="
        + transactionId + " flags=" + flags + " entries=" + entries.size()
        + (writes == null ? "" : " writes=" + writes.remaining() + "B") + "]";
  }
}
