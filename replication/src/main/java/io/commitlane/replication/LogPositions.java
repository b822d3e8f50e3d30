package io.commitlane.replication;

/**
 * Commit positions assigned by the replicated log, like versionstamps: a commit's positions are
 * {@code index * PER_ENTRY + n}, where {@code index} is its entry's Raft index and {@code n}
 * counts the positions that the entry's earlier commits (slots) used, plus the ordinal. They
 * increase in log order, are the same on every replica, and are never handed out twice.
 *
 * <p>Everything a replica applied is committed on a majority, so every position below {@link
 * #after(long) after(appliedIndex)} is settled there: a reader that reads that bound first and
 * then the data, and keeps only positions below it, never misses a position that appears later.
 */
public final class LogPositions {
  /** Positions one entry can hold, across all of its commits. */
  public static final int PER_ENTRY = 1 << 20;

  private LogPositions() {}

  /** The first position of the entry at {@code index}. */
  public static long first(long index) {
    return index * PER_ENTRY;
  }

  /** The first position after every entry up to {@code appliedIndex}: the settled bound. */
  public static long after(long appliedIndex) {
    return (appliedIndex + 1) * PER_ENTRY;
  }

  /** The Raft index of the entry that holds {@code position}. */
  public static long index(long position) {
    return position / PER_ENTRY;
  }
}
