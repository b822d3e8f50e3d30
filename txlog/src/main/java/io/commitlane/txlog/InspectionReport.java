package io.commitlane.txlog;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link LogInspector} found in a log directory.
 *
 * @param segments segment files scanned
 * @param records valid record frames
 * @param abortMarkers valid abort markers (each hides one record from readers and replay)
 * @param corruptFrames corrupt frames (each a lost record)
 * @param damage every damage other than a torn tail: corrupt frames, missing, truncated and
 *     unreadable segments (the same judgement open makes); empty for a sound log
 * @param foreignEntries files and directories in the log directory that are not the log's
 * @param tornTailBytes bytes of an incomplete last frame that the next open will cut off (normal
 *     after a crash, not corruption)
 * @param flushedPosition the persisted flushed position
 */
public record InspectionReport(
    int segments,
    long records,
    long abortMarkers,
    List<CorruptFrame> corruptFrames,
    List<LogDamage> damage,
    List<Path> foreignEntries,
    long tornTailBytes,
    long flushedPosition) {

  /** Whether the log has no damage and nothing foreign in its directory. */
  public boolean clean() {
    return damage.isEmpty() && foreignEntries.isEmpty();
  }
}
