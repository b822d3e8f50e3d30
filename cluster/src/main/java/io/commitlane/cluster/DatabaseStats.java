package io.commitlane.cluster;

import io.commitlane.actors.PipelineStats;

/**
 * A sharded database as its owner sees it: who owns it, since which epoch, and its pipeline
 * counters since it opened there.
 *
 * @param database the database (entity id)
 * @param owner the owner node's address
 * @param ownerEpoch the owner's epoch (see {@link CommitStamp})
 * @param queueDepth commits admitted and not yet taken by an executor
 * @param inFlight commits admitted and not yet completed
 * @param admitted commits admitted since it opened on this owner
 * @param committed commits that succeeded
 * @param conflicts commits refused by validation
 * @param failed commits that failed otherwise
 * @param overloaded commits refused because the queue was full
 */
public record DatabaseStats(
    String database,
    String owner,
    long ownerEpoch,
    int queueDepth,
    long inFlight,
    long admitted,
    long committed,
    long conflicts,
    long failed,
    long overloaded) implements ShardedDatabase.StatsReply {

  static DatabaseStats of(String database, String owner, long epoch, PipelineStats s) {
    return new DatabaseStats(database, owner, epoch, s.queueDepth(), s.inFlight(), s.admitted(), s.committed(), s.conflicts(),
        s.failed(), s.overloaded());
  }
}
