package io.commitlane.txlog;

/**
 * Where a {@link LogReader} starts and stops, and what it may see. Immutable; each {@code with}
 * style method returns a new request.
 *
 * <pre>{@code
 * log.reader(ReadRequest.fromPosition(p).exclusive());           // resume after p
 * log.reader(ReadRequest.fromTimestamp(t).untilTimestamp(t2));   // a time window
 * log.reader(ReadRequest.fromLastFlushed());                     // what replay would see
 * }</pre>
 */
public final class ReadRequest {
  enum Start { POSITION, TIMESTAMP, LAST_FLUSHED }

  final Start start;
  final long startValue;
  final boolean exclusive;
  final long endTimestamp;
  final long endPosition;
  final boolean includeUncommitted;

  private ReadRequest(Start start, long startValue, boolean exclusive, long endTimestamp,
      long endPosition, boolean includeUncommitted) {
    this.start = start;
    this.startValue = startValue;
    this.exclusive = exclusive;
    this.endTimestamp = endTimestamp;
    this.endPosition = endPosition;
    this.includeUncommitted = includeUncommitted;
  }

  /** From the oldest retained record. */
  public static ReadRequest fromStart() {
    return fromPosition(LogPosition.START);
  }

  /**
   * From the record at {@code position} (inclusive by default). A position in a purged segment
   * starts at the oldest retained record.
   */
  public static ReadRequest fromPosition(long position) {
    return new ReadRequest(Start.POSITION, position, false, Long.MAX_VALUE, Long.MAX_VALUE, false);
  }

  /**
   * From the first record, in log order, whose timestamp is at least {@code timestampMillis}
   * (more than, if {@link #exclusive()}); every record after it is returned. Timestamps are
   * assumed to rise with log position up to small races between appenders; resume by position
   * when an exact cut matters.
   */
  public static ReadRequest fromTimestamp(long timestampMillis) {
    return new ReadRequest(Start.TIMESTAMP, timestampMillis, false, Long.MAX_VALUE, Long.MAX_VALUE,
        false);
  }

  /** From the persisted flushed position: the records a crash replay would offer. */
  public static ReadRequest fromLastFlushed() {
    return new ReadRequest(Start.LAST_FLUSHED, 0, false, Long.MAX_VALUE, Long.MAX_VALUE, false);
  }

  /** Skip the start record itself (a position or timestamp equal to the start). */
  public ReadRequest exclusive() {
    return new ReadRequest(start, startValue, true, endTimestamp, endPosition, includeUncommitted);
  }

  /** Include the start record (the default). */
  public ReadRequest inclusive() {
    return new ReadRequest(start, startValue, false, endTimestamp, endPosition, includeUncommitted);
  }

  /**
   * Stop at the first record whose timestamp is after {@code timestampMillis} (inclusive end);
   * the reader then reports {@link LogReader#isFinished()}.
   */
  public ReadRequest untilTimestamp(long timestampMillis) {
    return new ReadRequest(start, startValue, exclusive, timestampMillis, endPosition,
        includeUncommitted);
  }

  /** Never return a record at or after {@code position}. */
  public ReadRequest endBefore(long position) {
    return new ReadRequest(start, startValue, exclusive, endTimestamp, position,
        includeUncommitted);
  }

  /**
   * Also return records at or above the committed watermark that were written but have not
   * finished (default false). Such a record may still be aborted afterwards.
   */
  public ReadRequest includeUncommitted(boolean include) {
    return new ReadRequest(start, startValue, exclusive, endTimestamp, endPosition, include);
  }

  @Override
  public String toString() {
    return "ReadRequest{" + start + "=" + (start == Start.POSITION
        ? LogPosition.toString(startValue) : startValue) + (exclusive ? " exclusive" : "")
        + (endTimestamp == Long.MAX_VALUE ? "" : " until " + endTimestamp)
        + (endPosition == Long.MAX_VALUE ? "" : " before " + LogPosition.toString(endPosition))
        + (includeUncommitted ? " includeUncommitted" : "") + "}";
  }
}
