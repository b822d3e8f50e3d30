package io.commitlane.bench;

import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.cluster.DatabaseSharding;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * Part 1 of {@code replication}: the same two loads of one-key blind commits (100-byte values,
 * random keys) against a replicated database (three voters in this JVM) and against one database
 * of today's single-owner cluster (three Pekko nodes in this JVM, {@link LoopbackCluster}, driven
 * by {@link ShardedWriteLoad}), the variants of each load rotated round by round.
 *
 * <ul>
 *   <li>1 client, 1 commit in flight: through a follower's handle (every replicated commit goes to
 *       the leader over gRPC, whichever node's handle sends it), against the single owner from
 *       another node (one remote hop) and from the owner's own node (none);
 *   <li>8 clients, 8 commits in flight each, client {@code c} on node {@code c % 3}, on both.
 * </ul>
 *
 * <p>Warm-up rounds run every variant first without counting it: in a fresh JVM the replicated
 * path and the remote hop keep speeding up for the first rounds (JIT, connections), which would
 * otherwise land in round 1 only.
 */
final class ReplicationThroughput {
  static final String ONE = "1 client x 1 in flight";
  static final String EIGHT = "8 clients x 8 in flight";
  static final String REPLICATED_ONE = "replicated, 3 voters, client on a follower's node";
  static final String OWNER_REMOTE = "single owner, client on another node";
  static final String OWNER_LOCAL = "single owner, client on the owner's node";
  static final String REPLICATED_EIGHT = "replicated, 3 voters, clients on every node";
  static final String OWNER_EIGHT = "single owner, clients on every node";
  /** The single-owner cluster's one database ({@link ShardedWriteLoad} names them {@code bench-<i>}). */
  private static final String OWNED = "bench-0";
  private static final Duration DRAIN = Duration.ofSeconds(60);

  /** One measurement: a load, a variant, a round (from 0), what it did. */
  record Sample(String load, String variant, int round, ShardedWriteLoad.Rates rates) {}

  private final int runs;
  private final int warmupRounds;
  private final double warmup;
  private final double seconds;

  ReplicationThroughput(int runs, int warmupRounds, double warmup, double seconds) {
    this.runs = runs;
    this.warmupRounds = warmupRounds;
    this.warmup = warmup;
    this.seconds = seconds;
  }

  /** The variants of {@code load}, the baseline of its ratios last. */
  static List<String> variants(String load) {
    return load.equals(ONE) ? List.of(REPLICATED_ONE, OWNER_REMOTE, OWNER_LOCAL) : List.of(REPLICATED_EIGHT, OWNER_EIGHT);
  }

  /** What each variant is compared with: the single owner with the client as far from it, or nothing for the single owner itself. */
  static String baseline(String variant) {
    return switch (variant) {
      case REPLICATED_ONE -> OWNER_REMOTE;
      case REPLICATED_EIGHT -> OWNER_EIGHT;
      default -> null;
    };
  }

  /** Measures every variant of both loads {@code runs} times, appending to {@code samples} as it goes (a stop keeps what was done). */
  void measure(ReplicaLoopback replicas, List<ActorSystem<Void>> owners, List<Sample> samples, PrintStream out) throws Exception {
    List<DatabaseSharding> sharding = owners.stream().map(DatabaseSharding::init).toList();
    new ShardedWriteLoad(1, 1, 1, 0, 0).openAll(sharding.get(0));
    replicas.awaitLeader(DRAIN);
    for (int r = -warmupRounds; r < runs; r++) {
      for (String load : List.of(ONE, EIGHT)) {
        List<String> variants = variants(load);
        for (int i = 0; i < variants.size(); i++) {
          StopSignal.checkpoint();
          String v = variants.get(Math.floorMod(i + r, variants.size()));
          ShardedWriteLoad.Rates m = v.startsWith("replicated") ? replicated(replicas, load) : singleOwner(owners, sharding, v);
          if (r >= 0) {
            samples.add(new Sample(load, v, r, m));
          }
          out.printf(Locale.ROOT, "  throughput %-8s %-22s %-50s %9s commits/s  p50 %9s µs  p99 %9s µs  %s failed/s%n",
              r < 0 ? "warm-up" : "run " + (r + 1), load, v, Units.count(m.committed()), Units.micros(m.p50Nanos()), Units.micros(m.p99Nanos()),
              Units.count(m.failed()));
        }
      }
    }
  }

  private ShardedWriteLoad.Rates replicated(ReplicaLoopback replicas, String load) throws Exception {
    int[] clients;
    int inFlight;
    if (load.equals(ONE)) {
      clients = new int[] {(replicas.awaitLeader(DRAIN) + 1) % replicas.size()};
      inFlight = 1;
    } else {
      clients = ReplicatedWriteLoad.spread(8, replicas.size(), -1);
      inFlight = 8;
    }
    try (ReplicatedWriteLoad l = new ReplicatedWriteLoad(replicas, clients, inFlight, Long.MAX_VALUE).start()) {
      try {
        return l.window(warmup, seconds);
      } finally {
        l.stop(DRAIN);
      }
    }
  }

  private ShardedWriteLoad.Rates singleOwner(List<ActorSystem<Void>> owners, List<DatabaseSharding> sharding, String variant) throws Exception {
    if (variant.equals(OWNER_EIGHT)) {
      List<DatabaseSharding> clients = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        clients.add(sharding.get(c % sharding.size()));
      }
      return new ShardedWriteLoad(1, 1, 8, warmup, seconds).drive(clients, false);
    }
    int owner = ownerNode(owners, sharding.get(0));
    int client = variant.equals(OWNER_LOCAL) ? owner : (owner + 1) % owners.size();
    return new ShardedWriteLoad(1, 1, 1, warmup, seconds).drive(List.of(sharding.get(client)), false);
  }

  /** Which of {@code owners} owns the database now. */
  private static int ownerNode(List<ActorSystem<Void>> owners, DatabaseSharding client) throws Exception {
    DatabaseStats st = (DatabaseStats) client.stats(OWNED).toCompletableFuture().get(60, TimeUnit.SECONDS);
    for (int i = 0; i < owners.size(); i++) {
      if (st.owner().equals(Cluster.get(owners.get(i)).selfMember().address().toString())) {
        return i;
      }
    }
    throw new IllegalStateException(OWNED + " is owned by " + st.owner() + ", none of the cluster's nodes");
  }
}
