package io.commitlane.txlog;

/**
 * A frame of the log failed its checksum or framing checks. It is one bad record, not the end of
 * the log: a reader that throws this has already moved to {@link #resumePosition()}, so calling
 * it again continues with the next valid record.
 */
public final class CorruptLogFrameException extends TransactionLogException {
  private static final long serialVersionUID = 1L;

  private final long position;
  private final long resumePosition;

  public CorruptLogFrameException(long position, long resumePosition, String reason) {
    super(
        "corrupt log frame at "
            + LogPosition.toString(position)
            + " ("
            + reason
            + "); the record there is lost, reading resumes at "
            + LogPosition.toString(resumePosition)
            + "; run LogInspector on the log directory for details");
    this.position = position;
    this.resumePosition = resumePosition;
  }

  /** The position of the bad frame. */
  public long position() {
    return position;
  }

  /** The position of the next valid frame (or the end of the readable log). */
  public long resumePosition() {
    return resumePosition;
  }
}
