package io.commitlane.txlog;

/**
 * Damage found in a log at open, other than a torn tail: records between {@link #position()} and
 * {@link #resume()} (log positions) are lost or unreadable.
 *
 * @param kind what is wrong
 * @param position where the damage starts
 * @param resume where the next readable frame after it starts (or where the damage ends)
 * @param detail what was found, for people: the file and what was wrong with it
 */
public record LogDamage(Kind kind, long position, long resume, String detail) {
  /** The kinds of damage recovery tells apart. */
  public enum Kind {
    /** Segment files are missing: deleted, or never where the next segment says they were. */
    MISSING_SEGMENTS,
    /** A segment exists but cannot be read as one: not a regular file, too large, unreadable. */
    UNREADABLE_SEGMENT,
    /** A segment ends before the position its successor recorded as its end. */
    TRUNCATED_SEGMENT,
    /** A frame fails its checks and valid frames follow it (or it ends an older segment). */
    CORRUPT_FRAME,
    /**
     * The flushed-position file of a log that has segments is missing or unreadable: where crash
     * replay may start is unknown.
     */
    FLUSHED_POSITION
  }

  @Override
  public String toString() {
    return kind + " at " + LogPosition.toString(position) + " (resumes at "
        + LogPosition.toString(resume) + "): " + detail;
  }
}
