package io.commitlane.txlog.internal.segment;

import io.commitlane.txlog.LogDamage;
import io.commitlane.txlog.LogInspector;
import io.commitlane.txlog.LogPosition;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks that a log's segments form an unbroken chain: numbers are consecutive (purge only ever
 * removes the oldest ones), each segment's recorded predecessor end matches what that predecessor
 * holds, and the oldest segment's predecessor is gone only if everything in it was flushed. Open
 * and {@link LogInspector} share it, so both judge a directory the same way.
 */
public final class SegmentChain {
  /** What the check needs to know about one segment (sorted by number when checked). */
  public record Link(long number, int previousEnd, long end, boolean readable) {}

  private SegmentChain() {}

  /**
   * The missing and truncated segments of {@code links} (sorted by number), given the log's
   * persisted flushed position; and a lost flushed position: a log with segments always has one
   * (it is written before the first segment). Without it, whether the segments before the oldest
   * one were purged (everything in them flushed) or lost cannot be told, so that is not judged.
   */
  public static List<LogDamage> check(List<Link> links, FlushedPositionFile.Stored flushed) {
    List<LogDamage> damage = new ArrayList<>();
    if (links.isEmpty()) {
      return damage;
    }
    long flushedPosition = flushed.position();
    if (!flushed.known()) {
      damage.add(new LogDamage(LogDamage.Kind.FLUSHED_POSITION, LogPosition.START, LogPosition.START,
          flushed.problem() + ", so where crash replay may start is unknown"));
    }
    Link first = links.get(0);
    if (first.previousEnd() >= 0 && flushed.known()) {
      long predecessorEnd = LogPosition.of(first.number() - 1, first.previousEnd());
      if (flushedPosition < predecessorEnd) {
        damage.add(new LogDamage(LogDamage.Kind.MISSING_SEGMENTS, flushedPosition,
            LogPosition.of(first.number(), SegmentHeader.BYTES),
            "the oldest segment is " + Segment.fileName(first.number()) + ", but the records from the"
                + " flushed position " + LogPosition.toString(flushedPosition) + " to the end of segment "
                + (first.number() - 1) + " (" + LogPosition.toString(predecessorEnd) + ") are missing"));
      }
    }
    for (int i = 1; i < links.size(); i++) {
      Link prev = links.get(i - 1);
      Link cur = links.get(i);
      if (cur.number() != prev.number() + 1) {
        if (cur.previousEnd() != SegmentHeader.NO_PREDECESSOR) {
          damage.add(new LogDamage(LogDamage.Kind.MISSING_SEGMENTS, LogPosition.of(prev.number() + 1, 0),
              LogPosition.of(cur.number(), SegmentHeader.BYTES), "segment files "
                  + Segment.fileName(prev.number() + 1) + (cur.number() - prev.number() > 2
                      ? " to " + Segment.fileName(cur.number() - 1) : "") + " are missing"));
        }
      } else if (cur.previousEnd() >= 0 && prev.readable() && prev.end() < cur.previousEnd()) {
        damage.add(new LogDamage(LogDamage.Kind.TRUNCATED_SEGMENT, LogPosition.of(prev.number(), prev.end()),
            LogPosition.of(cur.number(), SegmentHeader.BYTES), Segment.fileName(prev.number()) + " ends at byte "
                + prev.end() + " but held records up to byte " + cur.previousEnd() + " when "
                + Segment.fileName(cur.number()) + " was started"));
      }
    }
    return damage;
  }
}
