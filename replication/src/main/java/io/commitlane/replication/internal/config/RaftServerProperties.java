package io.commitlane.replication.internal.config;

import io.commitlane.annotation.InternalApi;
import io.commitlane.replication.ReplicaNodeSettings;
import io.commitlane.replication.internal.transport.ReplicaRpcType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * INTERNAL API. How a replica node configures its Ratis server, from its settings: transport and
 * address, election timeouts, snapshots and log purging, linearizable reads under a leader lease,
 * AppendEntries and the leader's retries to a follower it cannot reach; each choice with why.
 */
@InternalApi
public final class RaftServerProperties {
  private RaftServerProperties() {}

  public static RaftProperties of(ReplicaNodeSettings s) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, new ReplicaRpcType());
    RaftServerConfigKeys.setStorageDir(p, List.of(s.directory().resolve("raft").toFile()));
    GrpcConfigKeys.Server.setHost(p, s.self().host());
    GrpcConfigKeys.Server.setPort(p, s.self().port());
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(s.electionTimeoutMin().toMillis(), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(s.electionTimeoutMax().toMillis(), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, s.snapshotEveryEntries());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(s.logSegmentBytes()));
    // No commit-index entry after each commit: it doubled the entries and the log syncs per commit
    // at one commit in flight. Without it a restarted replica learns the commit index from the
    // leader before it applies what it holds.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    // Keep some entries below each snapshot: a follower just behind the purge point catches up
    // from the log rather than from a whole snapshot.
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(1024, s.snapshotEveryEntries() / 10)));
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, Math.max(200, s.snapshotEveryEntries() / 4));
    // A read through the leader waits for its read index: it sees every commit acknowledged before it.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    // While the majority acknowledged its heartbeats within the last 0.9 election timeouts, no
    // other leader can exist: the leader answers reads at once instead of confirming its
    // leadership with a heartbeat round per read. Monotonic clocks only, no clock sync needed.
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
    // The leader sends each entry as soon as it is appended instead of composing AppendEntries
    // from what queued meanwhile (the setting Ozone measured faster); entries already carry many
    // commits each (CommitBatcher), and AppendEntries stay pipelined, up to Ratis's default of
    // outstanding appends per follower. The log still syncs before a replica acknowledges.
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, appenderRetryPolicy(s.electionTimeoutMin()));
    return p;
  }

  /**
   * How long the leader waits before it tries again to send to a follower it failed to reach:
   * Ratis's first 10 retries at once, then about a heartbeat interval (half of {@code
   * electionTimeoutMin}, 0.5-1.5x at random) however many failed. Ratis's own policy waits 1 s
   * after 10 failures and 5 s after 30, and each entry appended while a follower is stopped
   * counts two (the send of the entry and of the heartbeat stream both fail): a follower
   * restarted after a dozen or more commits went on without it heard nothing for up to 7.5 s,
   * and its first read barrier waited that long (after 1,030 failures Ratis's policy stops
   * waiting at all). A follower that answers is never delayed here; one that does
   * not costs the leader a failed send per heartbeat interval.
   */
  public static String appenderRetryPolicy(Duration electionTimeoutMin) {
    long heartbeat = Math.max(1, electionTimeoutMin.toMillis() / 2);
    return "1ms,10, " + heartbeat + "ms," + Integer.MAX_VALUE;
  }
}
