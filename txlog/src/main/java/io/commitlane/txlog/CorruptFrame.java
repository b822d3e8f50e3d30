package io.commitlane.txlog;

/**
 * A corrupt region found by recovery or inspection: one lost record.
 *
 * @param position where the bad frame starts
 * @param resumePosition where the next valid frame (or the end of the segment) is
 * @param reason what check failed
 */
public record CorruptFrame(long position, long resumePosition, String reason) {
  @Override
  public String toString() {
    return LogPosition.toString(position) + " -> " + LogPosition.toString(resumePosition) + " ("
        + reason + ")";
  }
}
