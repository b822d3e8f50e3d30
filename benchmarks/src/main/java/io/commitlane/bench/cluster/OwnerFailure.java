package io.commitlane.bench.cluster;

import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.bench.harness.HostProcess;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent.CurrentClusterState;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;

/**
 * One failover event: the host that owns the most databases (never the oldest, which runs
 * sharding's coordinator) is killed with SIGKILL, or frozen with SIGSTOP for {@code freeze}
 * seconds and resumed with SIGCONT; then the client's view of the cluster and the load's commits
 * are watched until the victim is removed and every database it owned committed again under a new
 * owner. A freeze shorter than it takes to down the victim ends differently: the victim is back,
 * reachable and up, and every database it owned committed again after the thaw, still on it.
 */
final class OwnerFailure {
  private final ActorSystem<Void> client;
  private final FailoverLoad load;
  private final double freeze;
  private final double recoveryTimeout;

  OwnerFailure(ActorSystem<Void> client, FailoverLoad load, double freeze, double recoveryTimeout) {
    this.client = client;
    this.load = load;
    this.freeze = freeze;
    this.recoveryTimeout = recoveryTimeout;
  }

  /** Kill or freeze ({@code kind}) a host of {@code hosts}, given each database's owner (in the load's order), and time its recovery. */
  FailoverEvent inject(String kind, Map<String, DatabaseStats> owners, List<HostProcess> hosts) throws Exception {
    HostProcess victim = null;
    long most = -1;
    for (HostProcess h : hosts) {
      long owned = owners.values().stream().filter(s -> s.owner().equals(h.address())).count();
      if (h.index > 0 && !h.gone && owned > most) {
        victim = h;
        most = owned;
      }
    }
    HostProcess v = victim;
    List<String> owned = owners.keySet().stream().filter(db -> owners.get(db).owner().equals(v.address())).toList();
    Address address = new Address("pekko", "commitlane", "127.0.0.1", v.port);
    long t0 = System.nanoTime();
    long thawAt = Long.MAX_VALUE;
    boolean thawDone = false;
    long thawed = 0;
    if (kind.equals("kill")) {
      v.process.destroyForcibly(); // SIGKILL
    } else {
      v.signal("STOP");
      thawAt = t0 + (long) (freeze * 1e9);
    }
    v.gone = true;
    Cluster cluster = Cluster.get(Adapter.toClassic(client));
    long unreachable = -1;
    long downed = -1;
    long removed = -1;
    long recovered = -1;
    long deadline = t0 + (long) (recoveryTimeout * 1e9);
    if (owned.isEmpty()) {
      recovered = t0; // nothing of it to move
    }
    boolean survived = false; // a freeze that ended before the victim was downed
    while (recovered < 0 || (removed < 0 && !survived)) {
      long now = System.nanoTime();
      if (now > deadline) {
        throw new IllegalStateException(kind + " of host " + v.index + ": its databases " + owned + " did not commit again within "
            + recoveryTimeout + " s; see " + v.log);
      }
      if (now >= thawAt) {
        v.signal("CONT");
        thawAt = Long.MAX_VALUE;
        thawed = now;
        thawDone = true;
      }
      CurrentClusterState state = cluster.state();
      if (unreachable < 0 && state.getUnreachable().stream().anyMatch(m -> m.address().equals(address))) {
        unreachable = now;
      }
      Member m = null;
      for (Member each : state.getMembers()) {
        if (each.address().equals(address)) {
          m = each;
        }
      }
      if (downed < 0 && m != null && m.status() == MemberStatus.down()) {
        downed = now;
      }
      if (removed < 0 && m == null) {
        removed = now;
        downed = downed < 0 ? now : downed; // removed between two looks
      }
      if (!survived && thawDone && downed < 0 && m != null && m.status() == MemberStatus.up()
          && state.getUnreachable().stream().noneMatch(u -> u.address().equals(address))) {
        survived = true; // back before the downing: its databases stay with it
      }
      if (survived && recovered < 0) {
        long last = 0;
        for (String db : owned) {
          long acked = load.lastAckedAt.get(db).get();
          last = acked - thawed <= 0 || last < 0 ? -1 : Math.max(last, acked);
        }
        recovered = last > 0 ? last : -1;
      } else if (recovered < 0) {
        long last = 0;
        for (String db : owned) {
          long before = owners.get(db).ownerEpoch();
          long first = load.firstCommitOfEpoch.get(db).entrySet().stream().filter(e -> e.getKey() > before).mapToLong(Map.Entry::getValue)
              .min().orElse(-1);
          last = first < 0 || last < 0 ? -1 : Math.max(last, first);
        }
        recovered = last > 0 ? last : -1;
      }
      Thread.sleep(100); // the client's view of the cluster, sampled every 100 ms
    }
    if (thawAt != Long.MAX_VALUE) {
      v.signal("CONT");
    }
    long end = recovered;
    long noReplies = load.noReplyAt.stream().filter(t -> t >= t0 && t <= end).count();
    long longest = load.acks.stream().filter(a -> a.sentAt() <= end && a.ackedAt() >= t0).mapToLong(a -> a.ackedAt() - a.sentAt()).max()
        .orElse(0);
    if (survived) {
      v.gone = false; // still a member, still an owner: a later event may pick it again
    } else if (kind.equals("freeze")) {
      v.process.waitFor(120, TimeUnit.SECONDS); // resumed, it finds itself downed and exits
    }
    return new FailoverEvent(kind, v.index, owned.size(), seconds(unreachable, t0), seconds(downed, t0), seconds(removed, t0),
        seconds(recovered, t0), noReplies, longest / 1e9);
  }

  /** Seconds from {@code t0} to {@code at}; NaN if it never happened ({@code at} < 0). */
  private static double seconds(long at, long t0) {
    return at < 0 ? Double.NaN : (at - t0) / 1e9;
  }
}
