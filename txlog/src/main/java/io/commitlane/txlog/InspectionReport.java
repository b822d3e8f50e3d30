package io.commitlane.txlog;

import java.util.List;

/**
 * What {@link LogInspector} found in a log directory.
 *
 * @param segments segment files scanned
 * @param records valid record frames
 * @param abortMarkers valid abort markers (each hides one record from readers and replay)
 * @param corruptFrames corrupt frames (each a lost record); empty for a clean log
 * @param tornTailBytes bytes of an incomplete last frame that the next open will cut off (normal
 *     after a crash, not corruption)
 * @param flushedPosition the persisted flushed position
 */
public record InspectionReport(
    int segments,
    long records,
    long abortMarkers,
    List<CorruptFrame> corruptFrames,
    long tornTailBytes,
    long flushedPosition) {

  /** Whether no corrupt frame was found. */
  public boolean clean() {
    return corruptFrames.isEmpty();
  }
}
