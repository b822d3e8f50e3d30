package io.commitlane.replication;

/** How fresh a read outside a transaction must be. */
public enum ReadConsistency {
  /**
   * Through the leader, after its read index: the read sees every commit acknowledged before it
   * started, wherever it was committed. Costs a round trip to the leader and a heartbeat round.
   */
  LINEARIZABLE,
  /**
   * This node's replica as it is: no network, but it may miss the latest commits (a follower lags
   * the leader by a few milliseconds, more while it catches up).
   */
  LOCAL
}
