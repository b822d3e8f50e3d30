package io.commitlane.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.RequestId;
import io.commitlane.cluster.DatabaseSharding;
import io.commitlane.storage.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Sharded databases across nodes, all in this JVM on loopback: commits/s of a three-node cluster
 * (databases spread over the nodes, clients on every node) against a one-node cluster with the
 * same clients and databases; and the latency of one commit (one caller, one in flight) through
 * the facade, through sharding to a local owner, and through sharding to an owner on another node.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, subcommands = {ClusterNode.class, ClusterHost.class, FailoverBench.class},
    description = "Cluster Sharding: 3 nodes against 1 (commits/s, clients on every node), and the remote hop's p50/p99 against a local commit.")
final class ClusterBench implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--runs", defaultValue = "3", description = "Rounds, variants rotated. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--warmup", defaultValue = "1", description = "Warm-up seconds per measurement. Default: ${DEFAULT-VALUE}")
  double warmup;

  @Option(names = "--seconds", defaultValue = "3", description = "Measured seconds per measurement. Default: ${DEFAULT-VALUE}")
  double seconds;

  @Option(names = "--databases", defaultValue = "6", description = "Databases the clients commit to. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--clients", defaultValue = "4", description = "Clients per node of the 3-node cluster (the 1-node cluster gets 3x). Default: ${DEFAULT-VALUE}")
  int clients;

  @Option(names = "--in-flight", defaultValue = "8", description = "Commits each client keeps in flight. Default: ${DEFAULT-VALUE}")
  int inFlight;

  @Option(names = "--scenarios", split = ",", defaultValue = "throughput,latency",
      description = "throughput, latency and/or request-ids (the 1-node cluster's writes with and without request ids). Default: ${DEFAULT-VALUE}")
  List<String> scenarios;

  @Option(names = "--dir", description = "Directory for the databases (default: a temporary directory)")
  Path dir;

  private static final int VALUE_BYTES = 100;
  private static final int KEY_SPACE = 1 << 20;
  /** Request ids of the request-ids scenario: unique in the run. */
  private static final java.util.concurrent.atomic.AtomicLong REQUESTS = new java.util.concurrent.atomic.AtomicLong();

  @Override
  public Integer call() throws Exception {
    Checks.positive("--runs", runs);
    Checks.positive("--seconds", seconds);
    Checks.nonNegative("--warmup", warmup);
    Checks.range("--databases", databases, 1, 1000);
    Checks.range("--clients", clients, 1, 256);
    Checks.range("--in-flight", inFlight, 1, 1024);
    for (String s : scenarios) {
      if (!s.equals("throughput") && !s.equals("latency") && !s.equals("request-ids")) {
        throw Checks.usage("--scenarios: '" + s + "' is not throughput, latency or request-ids");
      }
    }
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-cluster-bench");
    List<ActorSystem<Void>> single = List.of();
    List<ActorSystem<Void>> three = List.of();
    try {
      System.out.println("starting a 1-node and a 3-node cluster in this JVM (loopback)...");
      single = startCluster("bench-single", 1, root.resolve("single"));
      if (scenarios.contains("throughput") || scenarios.contains("latency")) {
        three = startCluster("bench-three", 3, root.resolve("three"));
      }
      StringBuilder out = new StringBuilder();
      if (scenarios.contains("throughput")) {
        out.append(throughput(single, three));
      }
      if (scenarios.contains("latency")) {
        out.append(latency(three, root.resolve("facade")));
      }
      if (scenarios.contains("request-ids")) {
        out.append(requestIds(single));
      }
      System.out.println();
      System.out.print(out);
      return 0;
    } finally {
      for (ActorSystem<Void> s : reverse(three)) {
        terminate(s);
      }
      for (ActorSystem<Void> s : single) {
        terminate(s);
      }
      if (dir == null) {
        ContentionRunner.deleteRecursively(root);
      }
    }
  }

  // ---- throughput ---------------------------------------------------------------------------

  private String throughput(List<ActorSystem<Void>> single, List<ActorSystem<Void>> three) throws Exception {
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    Map<String, List<Double>> conflicts = new LinkedHashMap<>();
    Map<String, List<Double>> failures = new LinkedHashMap<>();
    String oneName = "1 node, " + 3 * clients + " clients";
    String threeName = "3 nodes, " + clients + " clients on each";
    rates.put(oneName, new ArrayList<>());
    rates.put(threeName, new ArrayList<>());
    for (String n : List.of(oneName, threeName)) {
      conflicts.put(n, new ArrayList<>());
      failures.put(n, new ArrayList<>());
    }
    List<DatabaseSharding> oneClients = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      oneClients.add(DatabaseSharding.init(single.get(0))); // 3x the clients, on the one node
    }
    List<DatabaseSharding> threeClients = three.stream().map(DatabaseSharding::init).toList();
    openAll(oneClients.get(0));
    openAll(threeClients.get(0));
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < 2; i++) {
        boolean one = (i + r) % 2 == 0;
        double[] m = drive(one ? oneClients : threeClients);
        String name = one ? oneName : threeName;
        rates.get(name).add(m[0]);
        conflicts.get(name).add(m[1]);
        failures.get(name).add(m[2]);
        System.out.printf(Locale.ROOT, "  throughput run %d  %-34s %10s commits/s  (%s conflicts/s, %s failed/s)%n", r + 1, name,
            Units.count(m[0]), Units.count(m[1]), Units.count(m[2]));
      }
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
        "%d databases, 1-key commits of %d-byte values, %d in flight per client:%n%n", databases, VALUE_BYTES, inFlight));
    t.append("| cluster | commits/s median [range] | x 1 node | conflicts/s | other failures/s |\n|---|---|---|---|---|\n");
    double base = Spread.of(rates.get(oneName)).median();
    for (String name : rates.keySet()) {
      Spread s = Spread.of(rates.get(name));
      t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", name, s.format(), Units.ratio(s.median() / base),
          Units.count(Spread.of(conflicts.get(name)).median()), Units.count(Spread.of(failures.get(name)).median())));
    }
    t.append("\nDatabases per owner in the 3-node cluster: ").append(owners(threeClients.get(0))).append('\n');
    return t.append('\n').toString();
  }

  // ---- request ids --------------------------------------------------------------------------

  /** The 1-node cluster's clients, rotated between writes without and with a request id each. */
  private String requestIds(List<ActorSystem<Void>> single) throws Exception {
    List<DatabaseSharding> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(DatabaseSharding.init(single.get(0)));
    }
    openAll(nodes.get(0));
    String without = "without request ids";
    String with = "with a request id each";
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    rates.put(without, new ArrayList<>());
    rates.put(with, new ArrayList<>());
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < 2; i++) {
        boolean ids = (i + r) % 2 == 1;
        double rate = drive(nodes, ids)[0];
        rates.get(ids ? with : without).add(rate);
        System.out.printf(Locale.ROOT, "  request ids run %d  %-24s %10s commits/s%n", r + 1, ids ? with : without, Units.count(rate));
      }
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
        "1 node, %d clients x %d in flight, 1-key writes of %d-byte values to %d databases:%n%n", 3 * clients, inFlight, VALUE_BYTES,
        databases));
    t.append("| writes | commits/s median [range] | x without |\n|---|---|---|\n");
    double base = Spread.of(rates.get(without)).median();
    for (String name : rates.keySet()) {
      Spread s = Spread.of(rates.get(name));
      t.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", name, s.format(), Units.ratio(s.median() / base)));
    }
    return t.append('\n').toString();
  }

  /** Opens every database (so the measurement starts with them open) and says where they are. */
  private void openAll(DatabaseSharding d) throws Exception {
    for (int i = 0; i < databases; i++) {
      d.stats("bench-" + i).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  private String owners(DatabaseSharding d) throws Exception {
    Map<String, Integer> byOwner = new LinkedHashMap<>();
    for (int i = 0; i < databases; i++) {
      DatabaseStats st = (DatabaseStats) d.stats("bench-" + i).toCompletableFuture().get(30, TimeUnit.SECONDS);
      byOwner.merge(st.owner().replaceAll(".*@", ""), 1, Integer::sum);
    }
    return byOwner.toString();
  }

  /** Every client keeps {@code inFlight} commits going for warm-up + measured seconds; returns {commits/s, conflicts/s, failed/s}. */
  private double[] drive(List<DatabaseSharding> nodes) throws InterruptedException {
    return drive(nodes, false);
  }

  /** {@link #drive(List)}, each write with a request id of its own when {@code ids}. */
  private double[] drive(List<DatabaseSharding> nodes, boolean ids) throws InterruptedException {
    LongAdder committed = new LongAdder();
    LongAdder conflicted = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    LongAdder outstanding = new LongAdder();
    for (DatabaseSharding node : nodes) {
      for (int c = 0; c < clients; c++) {
        for (int f = 0; f < inFlight; f++) {
          outstanding.increment();
          next(node, ids, committed, conflicted, failed, measuring, stop, outstanding);
        }
      }
    }
    Thread.sleep((long) (warmup * 1000)); // the measurement window itself: nothing waits on it for a result
    measuring.set(true);
    long start = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    double elapsed = (System.nanoTime() - start) / 1e9;
    long c = committed.sum();
    long x = conflicted.sum();
    long f = failed.sum();
    stop.set(true);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (outstanding.sum() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10); // let in-flight commits finish before the next variant starts
    }
    return new double[] {c / elapsed, x / elapsed, f / elapsed};
  }

  private void next(DatabaseSharding node, boolean ids, LongAdder committed, LongAdder conflicted, LongAdder failed,
      AtomicBoolean measuring, AtomicBoolean stop, LongAdder outstanding) {
    if (stop.get()) {
      outstanding.decrement();
      return;
    }
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    String db = "bench-" + rnd.nextInt(databases);
    byte[] key = java.nio.ByteBuffer.allocate(8).putLong(rnd.nextInt(KEY_SPACE)).array();
    byte[] value = new byte[VALUE_BYTES];
    rnd.nextBytes(value);
    RequestId id = ids ? RequestId.of("w" + REQUESTS.incrementAndGet()) : null;
    node.write(db, List.of(Mutation.put(key, value)), null, id).whenComplete((reply, err) -> {
      if (measuring.get()) {
        if (reply instanceof DatabaseProtocol.Committed) {
          committed.increment();
        } else if (reply instanceof DatabaseProtocol.Conflicted) {
          conflicted.increment(); // a blind write whose lock bucket another commit wrote after its baseline
        } else {
          failed.increment();
        }
      }
      next(node, ids, committed, conflicted, failed, measuring, stop, outstanding);
    });
  }

  // ---- latency ------------------------------------------------------------------------------

  private String latency(List<ActorSystem<Void>> three, Path facadeDir) throws Exception {
    DatabaseSharding client = DatabaseSharding.init(three.get(0));
    String local = null;
    String remote = null;
    for (int i = 0; local == null || remote == null; i++) {
      String db = "latency-" + i;
      DatabaseStats st = (DatabaseStats) client.stats(db).toCompletableFuture().get(60, TimeUnit.SECONDS);
      boolean here = st.owner().equals(Cluster.get(three.get(0)).selfMember().address().toString());
      if (here && local == null) {
        local = db;
      } else if (!here && remote == null) {
        remote = db;
      }
    }
    CommitlaneDatabase facade = CommitlaneDatabase.open(three.get(0), facadeDir);
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    String facadeName = "facade commit on the same node (no sharding)";
    String localName = "sharded, owner on the same node";
    String remoteName = "sharded, owner on another node (remote hop)";
    List<String> names = List.of(facadeName, localName, remoteName);
    names.forEach(n -> results.put(n, new ArrayList<>()));
    try {
      for (int r = 0; r < runs; r++) {
        for (int i = 0; i < names.size(); i++) {
          String name = names.get((i + r) % names.size());
          String db = name.equals(localName) ? local : remote;
          double[] m = name.equals(facadeName) ? oneCaller(() -> commitOnFacade(facade)) : oneCaller(() -> commitSharded(client, db));
          results.get(name).add(m);
          System.out.printf(Locale.ROOT, "  latency run %d  %-46s p50 %8s us  p99 %8s us  %8s commits/s%n", r + 1, name,
              Units.micros(m[0]), Units.micros(m[1]), Units.count(m[2]));
        }
      }
    } finally {
      facade.close();
    }
    StringBuilder t = new StringBuilder("One caller, one 1-key commit in flight, client on node 1 of 3:\n\n");
    t.append("| path | p50 µs median [range] | p99 µs median [range] | commits/s median |\n|---|---|---|---|\n");
    for (String name : names) {
      List<double[]> m = results.get(name);
      Spread p50 = Spread.of(m.stream().map(x -> x[0] / 1000).toList());
      Spread p99 = Spread.of(m.stream().map(x -> x[1] / 1000).toList());
      t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", name, micro(p50), micro(p99),
          Units.count(Spread.of(m.stream().map(x -> x[2]).toList()).median())));
    }
    return t.toString();
  }

  private static String micro(Spread s) {
    return String.format(Locale.ROOT, "%.1f [%.1f-%.1f]", s.median(), s.min(), s.max());
  }

  private static void commitOnFacade(CommitlaneDatabase db) throws Exception {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    Transaction txn = db.begin();
    byte[] value = new byte[VALUE_BYTES];
    rnd.nextBytes(value);
    txn.put(java.nio.ByteBuffer.allocate(8).putLong(rnd.nextInt(KEY_SPACE)).array(), value);
    db.commit(txn).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void commitSharded(DatabaseSharding client, String db) throws Exception {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    byte[] value = new byte[VALUE_BYTES];
    rnd.nextBytes(value);
    CompletionStage<DatabaseProtocol.WriteReply> s = client.write(db,
        List.of(Mutation.put(java.nio.ByteBuffer.allocate(8).putLong(rnd.nextInt(KEY_SPACE)).array(), value)));
    DatabaseProtocol.WriteReply reply = s.toCompletableFuture().get(30, TimeUnit.SECONDS);
    if (!(reply instanceof DatabaseProtocol.Committed)) {
      throw new IllegalStateException("commit to " + db + " failed: " + reply);
    }
  }

  private interface Op {
    void run() throws Exception;
  }

  /** One caller, one commit at a time: {p50 ns, p99 ns, commits/s} over the measured seconds. */
  private double[] oneCaller(Op op) throws Exception {
    long warmEnd = System.nanoTime() + (long) (warmup * 1e9);
    while (System.nanoTime() < warmEnd) {
      op.run();
    }
    Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long n = 0;
    for (long t0 = System.nanoTime(); t0 < end; t0 = System.nanoTime()) {
      op.run();
      h.recordValue(Math.min(System.nanoTime() - t0, h.getHighestTrackableValue()));
      n++;
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new double[] {h.getValueAtPercentile(50), h.getValueAtPercentile(99), n / elapsed};
  }

  // ---- clusters in this JVM -----------------------------------------------------------------

  /** {@code n} nodes of cluster {@code name} on loopback (free ports), joined and Up, sharing {@code data}. */
  static List<ActorSystem<Void>> startCluster(String name, int n, Path data) {
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(ActorSystem.create(Behaviors.empty(), name, nodeConfig(0, List.of(), data)));
    }
    for (ActorSystem<Void> node : nodes) {
      Cluster.get(node).manager().tell(Join.create(Cluster.get(nodes.get(0)).selfMember().address()));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (ActorSystem<Void> node : nodes) {
      while (countUp(node) < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the " + name + " cluster did not come up within 60 s");
        }
        try {
          Thread.sleep(50); // polling membership while it converges
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    return nodes;
  }

  private static long countUp(ActorSystem<Void> node) {
    long up = 0;
    for (var m : Cluster.get(node).state().getMembers()) {
      if (m.status() == MemberStatus.up()) {
        up++;
      }
    }
    return up;
  }

  /**
   * The config of a node: loopback, {@code port} (0 = any free port), the given seed nodes, the
   * split-brain resolver, Jackson CBOR for the protocol (from the cluster module), its databases
   * under {@code data} (null: none, a client-only node).
   */
  static Config nodeConfig(int port, List<String> seeds, Path data) {
    String seedList = seeds.stream().map(s -> "\"" + s + "\"").reduce((a, b) -> a + ", " + b).orElse("");
    return ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = cluster",
            "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
            "pekko.remote.artery.canonical.port = " + port,
            "pekko.cluster.seed-nodes = [" + seedList + "]",
            "pekko.cluster.downing-provider-class = \"" + DatabaseSharding.SPLIT_BRAIN_RESOLVER + "\"",
            "pekko.cluster.split-brain-resolver.active-strategy = keep-majority",
            "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
            "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]",
            "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"",
            "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = on",
            data == null ? "" : "commitlane.cluster.data-dir = \"" + data.toAbsolutePath().toString().replace("\\", "/") + "\""))
        .withFallback(ConfigFactory.load());
  }

  private static void terminate(ActorSystem<Void> s) {
    s.terminate();
    try {
      s.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("commitlane: " + s.name() + " did not terminate: " + e);
    }
  }

  private static <T> List<T> reverse(List<T> l) {
    List<T> r = new ArrayList<>(l);
    java.util.Collections.reverse(r);
    return r;
  }
}
