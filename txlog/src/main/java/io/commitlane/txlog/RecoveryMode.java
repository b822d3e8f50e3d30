package io.commitlane.txlog;

/**
 * What opening a log does when it finds damage other than a torn tail: a missing or unreadable
 * segment, a segment cut short before its successor began, or a corrupt frame with valid frames
 * after it. The modes follow RocksDB's {@code WALRecoveryMode}. A torn tail (the last frames of
 * the newest segment, cut by a crash mid-write) is never damage: it was never acknowledged, and it
 * is cut off in every mode.
 */
public enum RecoveryMode {
  /**
   * The default. Replay stops at the first damage: the database opens at the consistent state
   * before it, and what was not replayed is reported (and marked so that readers never return a
   * record whose data was not restored).
   */
  POINT_IN_TIME,
  /** Refuse to open a log with any damage: {@link LogDamagedException} names the first one. */
  ABSOLUTE_CONSISTENCY,
  /**
   * Replay every readable record and skip the damaged ones. The result may be no state the
   * database ever had (a later record applied without an earlier lost one): use it to salvage.
   */
  SKIP_CORRUPTED
}
