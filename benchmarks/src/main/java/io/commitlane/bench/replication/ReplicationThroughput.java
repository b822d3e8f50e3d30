package io.commitlane.bench.replication;

import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.bench.cluster.LoopbackCluster;
import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.harness.WindowListener;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.Units;
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
 * Part 1 of {@code replication}: the same loads ({@link ThroughputLoad}: 100-byte values, random
 * keys) against a replicated database (three voters in this JVM), against etcd (three members on
 * loopback, {@link EtcdCluster}, when installed) and, for the two loads of one-key commits it
 * serves, against one database of today's single-owner cluster (three Pekko nodes in this JVM,
 * {@link LoopbackCluster}, driven by {@link ShardedWriteLoad}); the variants of each load rotated
 * round by round.
 *
 * <ul>
 *   <li>1 client, 1 commit in flight: through a follower's handle (every replicated commit goes to
 *       the leader over gRPC, whichever node's handle sends it) and through a follower of etcd;
 *       against the single owner from another node (one remote hop) and from the owner's own node;
 *   <li>8 clients x 8, 8 clients x 32 in flight, and 4 clients x 8 in flight of 16-key commits
 *       (etcd: one {@code Txn} of 16 puts), client {@code c} on node (member) {@code c % 3};
 *   <li>a read-modify-write of one key through a follower, one in flight: on the follower's
 *       replica as it is inside the transaction, as a local read then a write expecting the value
 *       read (what a replicated database actor's {@code ConditionalWrite} sends, checked in the
 *       log), and etcd's linearizable {@code Get} then
 *       {@code Txn} conditional on the key's revision. The 1 x 1 blind commit is its yardstick.
 * </ul>
 *
 * <p>Warm-up rounds run every variant first without counting it: in a fresh JVM the replicated
 * path and the remote hop keep speeding up for the first rounds (JIT, connections), which would
 * otherwise land in round 1 only. CPU per commit counts every thread of this JVM (servers and
 * clients) plus, for etcd, the members' processes.
 */
final class ReplicationThroughput {
  static final String REPLICATED_ONE = "replicated, 3 voters, client on a follower's node";
  static final String ETCD_ONE = "etcd, 3 members, client on a follower";
  static final String OWNER_REMOTE = "single owner, client on another node";
  static final String OWNER_LOCAL = "single owner, client on the owner's node";
  static final String REPLICATED_EIGHT = "replicated, 3 voters, clients on every node";
  static final String ETCD_EIGHT = "etcd, 3 members, clients on every member";
  static final String OWNER_EIGHT = "single owner, clients on every node";
  static final String REPLICATED_RMW = "replicated, read of the follower's replica as it is";
  static final String REPLICATED_EXPECTING_RMW = "replicated, local read then a write expecting it (an actor's ConditionalWrite)";
  static final String ETCD_RMW = "etcd, linearizable Get then a Txn on its revision";
  /** The single-owner cluster's one database ({@link ShardedWriteLoad} names them {@code bench-<i>}). */
  private static final String OWNED = "bench-0";
  private static final Duration DRAIN = Duration.ofSeconds(60);

  /**
   * One measurement: a load (its label), a variant, a round (from 0), what it did, the CPU time
   * per commit (nanoseconds; NaN where not measured), and how long a trivial task waited on an
   * application's default dispatcher meanwhile ({@link ApplicationDispatcher}; null where not
   * measured).
   */
  record Sample(String load, String variant, int round, ShardedWriteLoad.Rates rates, double cpuNanosPerCommit, ProbeSample probe) {}

  /** Which peers run beside the replicated variants. */
  record Peers(EtcdCluster etcd, List<ActorSystem<Void>> owners) {
    boolean singleOwner() {
      return !owners.isEmpty();
    }
  }

  private final int runs;
  private final int warmupRounds;
  private final double warmup;
  private final double seconds;
  private final List<ThroughputLoad> loads;
  /** Where --diagnose writes Ratis's metrics and the threads' CPU per replicated cell; null without it. */
  private final RaftDiagnosis diagnosis;
  /** The application's dispatcher probed in every cell; set while {@link #measure} runs. */
  private ApplicationDispatcher application;

  ReplicationThroughput(int runs, int warmupRounds, double warmup, double seconds, List<ThroughputLoad> loads, RaftDiagnosis diagnosis) {
    this.runs = runs;
    this.warmupRounds = warmupRounds;
    this.warmup = warmup;
    this.seconds = seconds;
    this.loads = loads;
    this.diagnosis = diagnosis;
  }

  /** Every variant {@code load} can have, the replicated ones first; {@link #variants(ThroughputLoad, boolean, boolean)} picks those that run. */
  static List<String> variants(ThroughputLoad load) {
    return variants(load, true, true);
  }

  static List<String> variants(ThroughputLoad load, boolean etcd, boolean singleOwner) {
    List<String> v = new ArrayList<>();
    if (load.equals(ThroughputLoad.CONDITIONAL)) {
      v.add(REPLICATED_RMW);
      v.add(REPLICATED_EXPECTING_RMW);
      if (etcd) {
        v.add(ETCD_RMW);
      }
      return v;
    }
    boolean one = load.throughFollower();
    v.add(one ? REPLICATED_ONE : REPLICATED_EIGHT);
    if (etcd) {
      v.add(one ? ETCD_ONE : ETCD_EIGHT);
    }
    if (singleOwner && load.equals(ThroughputLoad.ONE)) {
      v.add(OWNER_REMOTE);
      v.add(OWNER_LOCAL);
    } else if (singleOwner && load.equals(ThroughputLoad.EIGHT)) {
      v.add(OWNER_EIGHT);
    }
    return v;
  }

  static boolean replicated(String variant) {
    return variant.startsWith("replicated");
  }

  static boolean etcd(String variant) {
    return variant.startsWith("etcd");
  }

  /** The single-owner variant a replicated variant is compared with (the client as far from it), or null. */
  static String singleOwnerBaseline(String variant) {
    return switch (variant) {
      case REPLICATED_ONE -> OWNER_REMOTE;
      case REPLICATED_EIGHT -> OWNER_EIGHT;
      default -> null;
    };
  }

  /** The etcd variant a replicated variant is compared with, or null. */
  static String etcdBaseline(String variant) {
    return switch (variant) {
      case REPLICATED_ONE -> ETCD_ONE;
      case REPLICATED_EIGHT -> ETCD_EIGHT;
      case REPLICATED_RMW, REPLICATED_EXPECTING_RMW -> ETCD_RMW;
      default -> null;
    };
  }

  /** Measures every variant of every load {@code runs} times, appending to {@code samples} as it goes (a stop keeps what was done). */
  void measure(ReplicaLoopback replicas, Peers peers, List<Sample> samples, PrintStream out) throws Exception {
    try (ApplicationDispatcher app = ApplicationDispatcher.start()) {
      application = app;
      rounds(replicas, peers, samples, out);
    } finally {
      application = null;
    }
  }

  private void rounds(ReplicaLoopback replicas, Peers peers, List<Sample> samples, PrintStream out) throws Exception {
    List<DatabaseSharding> sharding = peers.owners().stream().map(DatabaseSharding::init).toList();
    if (peers.singleOwner()) {
      new ShardedWriteLoad(1, 1, 1, 0, 0).openAll(sharding.get(0));
    }
    replicas.awaitLeader(DRAIN);
    for (int r = -warmupRounds; r < runs; r++) {
      out.printf(Locale.ROOT, "  %s, load average %s%n", r < 0 ? "warm-up round" : "round " + (r + 1), MachineInfo.current().loadAverage());
      for (ThroughputLoad load : loads) {
        List<String> variants = variants(load, peers.etcd() != null, peers.singleOwner());
        for (int i = 0; i < variants.size(); i++) {
          StopSignal.checkpoint();
          String v = variants.get(Math.floorMod(i + r, variants.size()));
          Sample s;
          if (replicated(v)) {
            s = replicated(replicas, load, v, r);
          } else if (etcd(v)) {
            s = etcd(peers.etcd(), load, v, r);
          } else {
            s = singleOwner(peers.owners(), sharding, load, v, r);
          }
          if (r >= 0) {
            samples.add(s);
          }
          ShardedWriteLoad.Rates m = s.rates();
          out.printf(Locale.ROOT, "  throughput %-8s %-40s %-62s %9s commits/s  p50 %9s µs  p99 %9s µs  %s failed/s%s%s%s%n",
              r < 0 ? "warm-up" : "run " + (r + 1), load.label(), v, Units.count(m.committed()), Units.micros(m.p50Nanos()),
              Units.micros(m.p99Nanos()), Units.count(m.failed()),
              load.shape().reads() ? "  " + Units.count(m.conflicted()) + " conflicted/s" : "",
              Double.isNaN(s.cpuNanosPerCommit()) ? "" : "  CPU " + Units.micros(s.cpuNanosPerCommit()) + " µs/commit",
              s.probe() == null ? "" : "  dispatcher probe p50 " + Units.micros(s.probe().p50Nanos()) + " µs p99 "
                  + Units.micros(s.probe().p99Nanos()) + " µs");
        }
      }
    }
  }

  private Sample replicated(ReplicaLoopback replicas, ThroughputLoad load, String variant, int round) throws Exception {
    int[] clients = load.throughFollower()
        ? new int[] {(replicas.awaitLeader(DRAIN) + 1) % replicas.size()}
        : ReplicatedWriteLoad.spread(load.clients(), replicas.size(), -1);
    CommitShape shape = variant.equals(REPLICATED_EXPECTING_RMW)
        ? new CommitShape(1, CommitShape.Kind.EXPECTING_READ_MODIFY_WRITE) : load.shape();
    CpuWindow cpu = new CpuWindow();
    RaftMetricsWindow raft = new RaftMetricsWindow();
    try (ReplicatedWriteLoad l = new ReplicatedWriteLoad(replicas, clients, load.inFlight(), Long.MAX_VALUE, shape).start();
        ApplicationDispatcher.Cell probe = application.cell()) {
      try {
        ShardedWriteLoad.Rates rates = l.window(warmup, seconds, (diagnosis == null ? cpu : cpu.and(raft)).and(probe));
        if (diagnosis != null) {
          diagnosis.add(load, variant, round, rates, seconds, replicas, raft);
        }
        return new Sample(load.label(), variant, round, rates, cpu.nanosPer(Math.round(rates.committed() * seconds)), probe.sample());
      } finally {
        l.stop(DRAIN);
      }
    }
  }

  private Sample etcd(EtcdCluster etcd, ThroughputLoad load, String variant, int round) throws Exception {
    int[] clients;
    if (load.throughFollower()) {
      int leader = etcd.awaitLeader(DRAIN);
      clients = new int[] {(leader + 1) % etcd.size()};
    } else {
      clients = ReplicatedWriteLoad.spread(load.clients(), etcd.size(), -1);
    }
    EtcdCpu cpu = new EtcdCpu(etcd);
    try (EtcdWriteLoad l = new EtcdWriteLoad(etcd, clients, load.inFlight(), load.shape()).start();
        ApplicationDispatcher.Cell probe = application.cell()) {
      try {
        ShardedWriteLoad.Rates rates = l.window(warmup, seconds, cpu.and(probe));
        return new Sample(load.label(), variant, round, rates, cpu.nanosPer(Math.round(rates.committed() * seconds)), probe.sample());
      } finally {
        l.stop(DRAIN);
      }
    }
  }

  /** CPU of this JVM (the clients) and of the etcd members over a window. */
  private static final class EtcdCpu implements WindowListener {
    private final EtcdCluster etcd;
    private final CpuWindow jvm = new CpuWindow();
    private long start = -1;
    private long nanos = -1;

    EtcdCpu(EtcdCluster etcd) {
      this.etcd = etcd;
    }

    @Override
    public void windowOpened() {
      jvm.windowOpened();
      start = etcd.cpuNanos();
    }

    @Override
    public void windowClosed() {
      long end = etcd.cpuNanos();
      jvm.windowClosed();
      nanos = start < 0 || end < 0 ? -1 : end - start;
    }

    double nanosPer(long commits) {
      return nanos < 0 ? Double.NaN : jvm.nanosPer(commits) + (commits <= 0 ? Double.NaN : (double) nanos / commits);
    }
  }

  private Sample singleOwner(List<ActorSystem<Void>> owners, List<DatabaseSharding> sharding, ThroughputLoad load, String variant, int round)
      throws Exception {
    List<DatabaseSharding> clients = new ArrayList<>();
    int inFlight = 1;
    if (variant.equals(OWNER_EIGHT)) {
      for (int c = 0; c < 8; c++) {
        clients.add(sharding.get(c % sharding.size()));
      }
      inFlight = 8;
    } else {
      int owner = ownerNode(owners, sharding.get(0));
      clients.add(sharding.get(variant.equals(OWNER_LOCAL) ? owner : (owner + 1) % owners.size()));
    }
    try (ApplicationDispatcher.Cell probe = application.cell()) {
      ShardedWriteLoad.Rates rates = new ShardedWriteLoad(1, 1, inFlight, warmup, seconds).drive(clients, false, probe);
      return new Sample(load.label(), variant, round, rates, Double.NaN, probe.sample());
    }
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
