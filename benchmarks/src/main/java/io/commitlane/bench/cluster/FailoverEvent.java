package io.commitlane.bench.cluster;

import java.util.Locale;

/**
 * What one failover event did: a {@code kind} (kill or freeze) of host {@code victim}, which owned
 * {@code owned} databases; when the client saw it unreachable, downed and removed, and when its
 * databases committed again (seconds after the event); the {@code NO_REPLY} answers meanwhile and
 * the longest wait of a write acknowledged across it (seconds). A freeze that ended before the
 * victim was downed has {@code downed} and {@code removed} NaN: the victim came back as the owner.
 */
record FailoverEvent(String kind, int victim, int owned, double unreachable, double downed, double removed, double writesAgain,
    long noReplies, double longestWrite) {

  /** Seconds after the event as the tables print them: {@code +1.2}, or {@code -} for what never happened. */
  static String at(double seconds) {
    return Double.isNaN(seconds) ? "-" : String.format(Locale.ROOT, "+%.1f", seconds);
  }
}
