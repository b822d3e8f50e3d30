package io.commitlane.bench.replication;

import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.report.Units;
import io.commitlane.replication.ReplicaStatus;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * Part 3 of {@code replication}: a follower is stopped, the two others commit {@code commits}
 * one-key commits with many in flight, then the follower starts again on its directory; the time
 * from that start until it has applied as far as the leader. Whether it caught up by replaying the
 * leader's log or by installing the leader's snapshot is read from the replicas' statuses:
 *
 * <ul>
 *   <li>expected: a snapshot when the leader's log starts past the follower's last entry (the
 *       leader's match index for it when it stopped), so that the entries it lacks are gone;
 *   <li>observed: at the first sample (every 10 ms) after the restart that shows it past where it stopped, a
 *       replica that installed a snapshot has jumped to at least the leader's snapshot index, one
 *       that replays has moved on by a few thousand entries at most.
 * </ul>
 */
final class ReplicationCatchUp {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int CLIENTS = 4;
  private static final long POLL_MILLIS = 10;

  /**
   * The result; times in seconds. {@code firstAdvance}: the follower's applied index at the first
   * sample past the larger of {@code appliedAtStop} and {@code matchAtStop}.
   */
  record Result(long commits, int inFlight, double commitSeconds, long failures, String follower, long appliedAtStop, long matchAtStop,
      long leaderApplied, long leaderSnapshot, long leaderLogStart, double startSeconds, double caughtUpSeconds, long firstAdvance,
      ReplicaStatus after, String mode, String evidence) {
    double commitsPerSecond() {
      return commits / commitSeconds;
    }
  }

  private final long commits;
  private final int inFlight;
  private final Duration timeout;

  /** {@code inFlight}: commits in flight in all, over {@link #CLIENTS} clients on the two running nodes. */
  ReplicationCatchUp(long commits, int inFlight) {
    this.commits = commits;
    this.inFlight = inFlight;
    this.timeout = Duration.ofSeconds(600 + commits / 100); // a guard against a stuck run, far above any rate seen
  }

  Result measure(ReplicaLoopback cluster, PrintStream out) throws Exception {
    int leader = cluster.awaitLeader(WAIT);
    try (ReplicatedWriteLoad warm = new ReplicatedWriteLoad(cluster, ReplicatedWriteLoad.spread(3, cluster.size(), -1), 4, 300).start()) {
      warm.awaitDone(WAIT);
    }
    cluster.awaitLevel(WAIT);
    leader = cluster.awaitLeader(WAIT);
    int follower = (leader + 1) % cluster.size();
    String id = cluster.id(follower);
    long match = cluster.status(leader).followerMatchIndexes().getOrDefault(id, -1L);
    long appliedAtStop = cluster.status(follower).appliedIndex();
    cluster.stop(follower);
    out.printf(Locale.ROOT, "  catch-up: stopped follower %s at applied index %d (the leader's match index for it: %d); committing %,d...%n",
        id, appliedAtStop, match, commits);

    int perClient = Math.max(1, (inFlight + CLIENTS - 1) / CLIENTS);
    long begin = System.nanoTime();
    long failures;
    try (ReplicatedWriteLoad load = new ReplicatedWriteLoad(cluster, ReplicatedWriteLoad.spread(CLIENTS, cluster.size(), follower), perClient,
        commits).start()) {
      if (!load.awaitDone(timeout)) {
        throw new IllegalStateException("only " + load.committed() + " of " + commits + " commits were acknowledged within " + timeout.toSeconds() + " s");
      }
      failures = load.failed();
    }
    double commitSeconds = (System.nanoTime() - begin) / 1e9;
    cluster.awaitLevel(WAIT);
    leader = cluster.awaitLeader(WAIT);
    ReplicaStatus before = cluster.status(leader);
    out.printf(Locale.ROOT, "  catch-up: %,d commits in %.1f s (%s commits/s, %d failed and sent again); the leader applied %d,"
            + " its snapshot at %d, its log from %d; starting %s again...%n", commits, commitSeconds, Units.count(commits / commitSeconds), failures,
        before.appliedIndex(), before.snapshotIndex(), before.logStartIndex(), id);

    long start = System.nanoTime();
    cluster.start(follower);
    double started = (System.nanoTime() - start) / 1e9;
    long past = Math.max(appliedAtStop, match); // the end of what it held when it stopped
    long firstAdvance = -1;
    long deadline = start + timeout.toNanos();
    ReplicaStatus f;
    while (true) {
      f = cluster.status(follower);
      ReplicaStatus l = cluster.status(cluster.awaitLeader(WAIT));
      if (f != null && firstAdvance < 0 && f.appliedIndex() > past) {
        firstAdvance = f.appliedIndex();
      }
      if (f != null && l != null && f.appliedIndex() >= l.appliedIndex()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("follower " + id + " applied " + (f == null ? "?" : f.appliedIndex()) + " of the leader's "
            + (l == null ? "?" : l.appliedIndex()) + " within " + timeout.toSeconds() + " s");
      }
      ContentionRunner.pause(POLL_MILLIS / 1000.0);
    }
    double caughtUp = (System.nanoTime() - start) / 1e9;
    ReplicaStatus after = f;
    boolean expectSnapshot = before.logStartIndex() > past + 1;
    boolean jumped = before.snapshotIndex() > past && firstAdvance >= before.snapshotIndex();
    String mode = expectSnapshot == jumped ? (jumped ? "snapshot" : "log replay") : "unclear";
    String observed = before.snapshotIndex() > past
        ? String.format(Locale.ROOT, "the follower's first applied index past %d was %d, %s the leader's snapshot index %d", past, firstAdvance,
            firstAdvance >= before.snapshotIndex() ? "at or past" : "below", before.snapshotIndex())
        : before.snapshotIndex() > 0 ? String.format(Locale.ROOT, "the leader's latest snapshot (index %d) held nothing the follower lacked",
            before.snapshotIndex())
        : "the leader had taken no snapshot";
    String evidence = String.format(Locale.ROOT, "the leader's log started at %d, %s the follower's last entry (%d); %s; afterwards the"
            + " follower's snapshot index is %d, its log starts at %d", before.logStartIndex(), expectSnapshot ? "past" : "not past", past,
        observed, after.snapshotIndex(), after.logStartIndex());
    Result r = new Result(commits, perClient * CLIENTS, commitSeconds, failures, id, appliedAtStop, match, before.appliedIndex(),
        before.snapshotIndex(), before.logStartIndex(), started, caughtUp, firstAdvance, after, mode, evidence);
    out.printf(Locale.ROOT, "  catch-up: %s caught up in %.2f s (start() took %.2f s) by %s: %s%n", id, caughtUp, started, mode, evidence);
    return r;
  }
}
