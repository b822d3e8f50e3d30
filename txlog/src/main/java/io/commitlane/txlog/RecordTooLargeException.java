package io.commitlane.txlog;

/**
 * A record does not fit in one segment. Records never span segments, so raise {@code
 * maxSegmentBytes} or split the transaction.
 */
public final class RecordTooLargeException extends TransactionLogException {
  private static final long serialVersionUID = 1L;

  public RecordTooLargeException(long frameBytes, long maxFrameBytes) {
    super(
        "log record of "
            + frameBytes
            + " bytes (framed) exceeds the largest that fits in a segment, "
            + maxFrameBytes
            + " bytes; raise maxSegmentBytes or split the transaction");
  }
}
