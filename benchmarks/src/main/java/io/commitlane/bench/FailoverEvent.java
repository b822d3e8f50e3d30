package io.commitlane.bench;

/**
 * What one failover event did: a {@code kind} (kill or freeze) of host {@code victim}, which owned
 * {@code owned} databases; when the client saw it unreachable, downed and removed, and when its
 * databases committed again (seconds after the event); the {@code NO_REPLY} answers meanwhile and
 * the longest wait of a write acknowledged across it (seconds).
 */
record FailoverEvent(String kind, int victim, int owned, double unreachable, double downed, double removed, double writesAgain,
    long noReplies, double longestWrite) {}
