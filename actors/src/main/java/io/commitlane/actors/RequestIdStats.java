package io.commitlane.actors;

import java.time.Duration;

/**
 * The request ids of one database ({@code commitlane.request-ids}): an id is remembered for
 * {@code window} after its write, and never forgotten sooner; at most {@code maxIds} are
 * remembered at once, so a write with a new id is refused ({@code Failed(OVERLOADED)}, retryable)
 * while that many are.
 *
 * @param remembered ids remembered now (records on disk; those past the window go at the next purge)
 * @param maxIds the most ids remembered at once
 * @param window how long an id is remembered
 * @param expired ids forgotten since open because their window ended
 * @param refusedFull writes with a new id refused since open because {@code maxIds} ids were remembered
 */
public record RequestIdStats(long remembered, long maxIds, Duration window, long expired, long refusedFull) {}
