package io.commitlane.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.cluster.DatabaseSharding;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent.CurrentClusterState;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Failover under load, with real processes: {@code --hosts} nodes (separate JVMs, {@code cluster
 * host}) host the databases on one shared data directory; this JVM is a client-only node that
 * keeps {@code --in-flight} writes going, each with a request id, retrying each until it is
 * committed. Then, one at a time, the host that owns the most databases (never the oldest, which
 * runs sharding's coordinator) is killed with SIGKILL, or frozen with SIGSTOP for {@code
 * --freeze} seconds and resumed with SIGCONT. Per event it reports when the client saw the
 * victim unreachable, downed and removed, when every database the victim owned committed again
 * under a new owner, how many answers were {@code NO_REPLY}, and the longest wait of an
 * acknowledged write. At the end, with every host stopped, it opens each database here and
 * counts writes applied more than once (their log entries) and acknowledged writes that are
 * missing.
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
    description = "Kill -9 and freeze (SIGSTOP/SIGCONT) a database owner under load; per event: time until writes succeed again,"
        + " NO_REPLY answers; then duplicates applied and acknowledged writes lost.")
final class FailoverBench implements Callable<Integer> {
  static final String ROLE = "databases";

  /** The settings each profile gives every node (hosts and the client). */
  static final Map<String, List<String>> PROFILES = new LinkedHashMap<>();

  static {
    PROFILES.put("default", List.of());
    PROFILES.put("fast", List.of(
        "pekko.cluster.failure-detector.heartbeat-interval = 500ms",
        "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 2s",
        "pekko.cluster.split-brain-resolver.stable-after = 5s",
        "pekko.cluster.down-removal-margin = 500ms",
        "pekko.cluster.leader-actions-interval = 500ms",
        "pekko.cluster.unreachable-nodes-reaper-interval = 500ms",
        "pekko.cluster.sharding.retry-interval = 500ms",
        "commitlane.cluster.ask-timeout = 2s",
        "commitlane.cluster.open-retry-interval = 100ms"));
  }

  @Option(names = "--hosts", defaultValue = "4", description = "Nodes that host databases (separate JVMs), 3..9. Default: ${DEFAULT-VALUE}")
  int hosts;

  @Option(names = "--databases", defaultValue = "8", description = "Databases written. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--in-flight", defaultValue = "16", description = "Writes the client keeps in flight. Default: ${DEFAULT-VALUE}")
  int inFlight;

  @Option(names = "--warmup", defaultValue = "10", description = "Seconds of load before the first event. Default: ${DEFAULT-VALUE}")
  double warmup;

  @Option(names = "--between", defaultValue = "5", description = "Seconds of load after an event recovered. Default: ${DEFAULT-VALUE}")
  double between;

  @Option(names = "--freeze", defaultValue = "30", description = "Seconds a frozen host stays stopped. Default: ${DEFAULT-VALUE}")
  double freeze;

  @Option(names = "--events", split = ",", defaultValue = "kill,freeze", description = "kill and/or freeze, in order. Default: ${DEFAULT-VALUE}")
  List<String> events;

  @Option(names = "--profiles", split = ",", defaultValue = "default,fast",
      description = "Settings to run with: default (Pekko's and commitlane's defaults) and/or fast (see docs/cluster.md). Default: ${DEFAULT-VALUE}")
  List<String> profiles;

  @Option(names = "--ids", split = ",", defaultValue = "on", description = "Writes with request ids (on) and/or without (off). Default: ${DEFAULT-VALUE}")
  List<String> ids;

  @Option(names = "--recovery-timeout", defaultValue = "240",
      description = "Seconds an event may take to recover before the run fails. Default: ${DEFAULT-VALUE}")
  double recoveryTimeout;

  @Option(names = "--set", description = "A setting for every node, after the profile's: HOCON KEY=VALUE (repeatable),"
      + " e.g. --set pekko.cluster.split-brain-resolver.stable-after=10s")
  List<String> settings = new ArrayList<>();

  @Option(names = "--dir", description = "Directory for the databases and the hosts' logs (default: a temporary directory, deleted)")
  Path dir;

  /** One host process. */
  private static final class Host {
    final int index;
    final int port;
    final Path log;
    Process process;
    boolean gone;

    Host(int index, int port, Path log) {
      this.index = index;
      this.port = port;
      this.log = log;
    }

    String address() {
      return "pekko://commitlane@127.0.0.1:" + port;
    }
  }

  /** What one event did, times in seconds after it. */
  record Event(String kind, int victim, int owned, double unreachable, double downed, double removed, double writesAgain,
      long noReplies, double longestWrite) {}

  /** One run: a profile, request ids on or off. */
  record Run(String profile, boolean ids, List<Event> events, long acknowledged, long sends, Map<String, Long> refusals, long duplicates,
      long lost, long abandoned, Path logs) {}

  @Override
  public Integer call() throws Exception {
    Checks.range("--hosts", hosts, 3, 9);
    Checks.range("--databases", databases, 1, 1000);
    Checks.range("--in-flight", inFlight, 1, 10_000);
    Checks.nonNegative("--warmup", warmup);
    Checks.nonNegative("--between", between);
    Checks.positive("--freeze", freeze);
    Checks.positive("--recovery-timeout", recoveryTimeout);
    events.forEach(e -> Checks.oneOf("--events", e, List.of("kill", "freeze")));
    profiles.forEach(p -> Checks.oneOf("--profiles", p, List.copyOf(PROFILES.keySet())));
    ids.forEach(i -> Checks.oneOf("--ids", i, List.of("on", "off")));
    if (events.size() >= hosts - 1) {
      throw Checks.usage("--events: " + events.size() + " events need more than " + (events.size() + 1) + " hosts (--hosts " + hosts
          + "): each takes one away, and the oldest host is never a victim");
    }
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-failover");
    List<Run> runs = new ArrayList<>();
    try {
      for (String profile : profiles) {
        for (String withIds : ids) {
          Path runDir = root.resolve(profile + "-ids-" + withIds);
          System.out.printf(Locale.ROOT, "%n== profile %s, request ids %s: %d hosts, %d databases, %d writes in flight (%s)%n", profile,
              withIds, hosts, databases, inFlight, runDir);
          List<String> nodeSettings = new ArrayList<>(PROFILES.get(profile));
          nodeSettings.addAll(settings);
          runs.add(run(profile, nodeSettings, withIds.equals("on"), runDir));
        }
      }
      System.out.println();
      System.out.print(report(runs));
      return runs.stream().allMatch(r -> r.lost() == 0 && (!r.ids() || r.duplicates() == 0)) ? 0 : Main.FAILED;
    } finally {
      if (dir == null) {
        ContentionRunner.deleteRecursively(root);
      }
    }
  }

  private Run run(String profile, List<String> nodeSettings, boolean withIds, Path runDir) throws Exception {
    Path data = runDir.resolve("data");
    Files.createDirectories(data);
    int[] ports = freePorts(hosts + 1);
    List<Integer> seeds = List.of(ports[0], ports[1]);
    List<Host> nodes = new ArrayList<>();
    ActorSystem<Void> client = null;
    try {
      for (int i = 0; i < hosts; i++) {
        Host h = new Host(i, ports[i], runDir.resolve("host-" + i + ".log"));
        h.process = startHost(h, seeds, data, nodeSettings);
        nodes.add(h);
      }
      client = ActorSystem.create(Behaviors.empty(), "commitlane", clientConfig(ports[hosts], seeds, nodeSettings));
      DatabaseSharding sharding = DatabaseSharding.init(client);
      sharding.whenReady().toCompletableFuture().get(180, TimeUnit.SECONDS);
      awaitMembers(client, hosts + 1);
      List<String> names = new ArrayList<>();
      for (int i = 0; i < databases; i++) {
        names.add("failover-" + i);
      }
      for (String db : names) {
        owner(sharding, db, 120); // opens it
      }
      FailoverLoad load = new FailoverLoad(client, sharding, names, withIds);
      load.start(inFlight);
      pause(warmup);
      List<Event> done = new ArrayList<>();
      for (String kind : events) {
        Event e = event(kind, client, sharding, names, nodes, load);
        done.add(e);
        System.out.printf(Locale.ROOT, "  %-6s host %d (owned %d): unreachable +%.1f s, downed +%.1f s, removed +%.1f s,"
                + " writes again +%.1f s, %d NO_REPLY, longest write %.1f s%n", e.kind(), e.victim(), e.owned(), e.unreachable(),
            e.downed(), e.removed(), e.writesAgain(), e.noReplies(), e.longestWrite());
        pause(between);
      }
      load.stop();
      long deadline = System.nanoTime() + (long) (recoveryTimeout * 1e9);
      while (load.outstanding() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(100); // polling the writes still retrying
      }
      client.terminate();
      client.getWhenTerminated().toCompletableFuture().get(120, TimeUnit.SECONDS);
      client = null;
      stopHosts(nodes);
      long[] checked = verify(data, names, load);
      Map<String, Long> refusals = new HashMap<>();
      load.refusals.forEach((k, v) -> refusals.put(k, v.sum()));
      return new Run(profile, withIds, done, load.acks.size(), load.sends.sum(), refusals, checked[0], checked[1], load.abandoned.get(),
          runDir);
    } finally {
      if (client != null) {
        client.terminate();
        client.getWhenTerminated().toCompletableFuture().get(120, TimeUnit.SECONDS);
      }
      for (Host h : nodes) {
        if (h.process.isAlive()) {
          signal(h.process, "CONT");
          h.process.destroyForcibly();
        }
      }
    }
  }

  /** Kill or freeze the host that owns the most databases (never the oldest), and watch until its databases commit again. */
  private Event event(String kind, ActorSystem<Void> client, DatabaseSharding sharding, List<String> names, List<Host> nodes,
      FailoverLoad load) throws Exception {
    Map<String, DatabaseStats> owners = new HashMap<>();
    for (String db : names) {
      owners.put(db, owner(sharding, db, 60));
    }
    Host victim = null;
    long most = -1;
    for (Host h : nodes) {
      long owned = owners.values().stream().filter(s -> s.owner().equals(h.address())).count();
      if (h.index > 0 && !h.gone && owned > most) {
        victim = h;
        most = owned;
      }
    }
    Host v = victim;
    List<String> owned = names.stream().filter(db -> owners.get(db).owner().equals(v.address())).toList();
    Address address = new Address("pekko", "commitlane", "127.0.0.1", v.port);
    long t0 = System.nanoTime();
    long thawAt = Long.MAX_VALUE;
    if (kind.equals("kill")) {
      v.process.destroyForcibly(); // SIGKILL
    } else {
      signal(v.process, "STOP");
      thawAt = t0 + (long) (freeze * 1e9);
    }
    v.gone = true;
    org.apache.pekko.cluster.Cluster cluster = org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(client));
    long unreachable = -1;
    long downed = -1;
    long removed = -1;
    long recovered = -1;
    long deadline = t0 + (long) (recoveryTimeout * 1e9);
    if (owned.isEmpty()) {
      recovered = t0; // nothing of it to move
    }
    while (recovered < 0 || removed < 0) {
      long now = System.nanoTime();
      if (now > deadline) {
        throw new IllegalStateException(kind + " of host " + v.index + ": its databases " + owned + " did not commit again within "
            + recoveryTimeout + " s; see " + v.log);
      }
      if (now >= thawAt) {
        signal(v.process, "CONT");
        thawAt = Long.MAX_VALUE;
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
      if (recovered < 0) {
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
      signal(v.process, "CONT");
    }
    long end = recovered;
    long noReplies = load.noReplyAt.stream().filter(t -> t >= t0 && t <= end).count();
    long longest = load.acks.stream().filter(a -> a.sentAt() <= end && a.ackedAt() >= t0).mapToLong(a -> a.ackedAt() - a.sentAt()).max()
        .orElse(0);
    if (kind.equals("freeze")) {
      v.process.waitFor(120, TimeUnit.SECONDS); // resumed, it finds itself downed and exits
    }
    return new Event(kind, v.index, owned.size(), seconds(unreachable - t0), seconds(downed - t0), seconds(removed - t0),
        seconds(recovered - t0), noReplies, longest / 1e9);
  }

  /**
   * With every node stopped: opens each database here and returns {duplicates, lost}: log
   * entries of a write beyond its first, and acknowledged writes whose key does not hold them.
   */
  private static long[] verify(Path data, List<String> names, FailoverLoad load) throws Exception {
    ActorSystem<Void> local = ActorSystem.create(Behaviors.empty(), "failover-check", ConfigFactory.parseString(
        "pekko.actor.provider = local").withFallback(ConfigFactory.load()));
    long duplicates = 0;
    long lost = 0;
    try {
      for (String db : names) {
        try (CommitlaneDatabase d = CommitlaneDatabase.open(local, data.resolve(db))) {
          Map<String, Integer> applied = new HashMap<>();
          try (LogReader reader = d.transactionLog("orders").reader(ReadRequest.fromStart())) {
            for (LogRecord r; (r = reader.next()) != null; ) {
              for (ByteBuffer e : r.entries()) {
                applied.merge(StandardCharsets.UTF_8.decode(e.duplicate()).toString(), 1, Integer::sum);
              }
            }
          }
          for (int n : applied.values()) {
            duplicates += n - 1;
          }
          for (FailoverLoad.Ack a : load.acks) {
            if (a.write().db().equals(db)) {
              byte[] v = d.storage().get(a.write().key().getBytes(StandardCharsets.UTF_8));
              if (v == null || !Arrays.equals(v, a.write().id().getBytes(StandardCharsets.UTF_8))) {
                lost++;
              }
            }
          }
        }
      }
    } finally {
      local.terminate();
      local.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
    return new long[] {duplicates, lost};
  }

  private static String report(List<Run> runs) {
    StringBuilder t = new StringBuilder("Per event (seconds after the kill or the SIGSTOP, as the client saw them):\n\n");
    t.append("| profile | request ids | event | victim owned | unreachable | downed | removed | writes succeed again | NO_REPLY answers |"
        + " longest acknowledged write |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (Run r : runs) {
      for (Event e : r.events()) {
        t.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | +%.1f | +%.1f | +%.1f | +%.1f | %d | %.1f s |%n", r.profile(),
            r.ids() ? "on" : "off", e.kind(), e.owned(), e.unreachable(), e.downed(), e.removed(), e.writesAgain(), e.noReplies(),
            e.longestWrite()));
      }
    }
    t.append("\nWhole runs (checked offline, every node stopped):\n\n");
    t.append("| profile | request ids | writes acknowledged | sends | refusals by reason | duplicates applied | acknowledged lost |"
        + " given up |\n|---|---|---|---|---|---|---|---|\n");
    for (Run r : runs) {
      t.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %s | %d | %d | %d |%n", r.profile(), r.ids() ? "on" : "off",
          r.acknowledged(), r.sends(), new java.util.TreeMap<>(r.refusals()), r.duplicates(), r.lost(), r.abandoned()));
    }
    return t.toString();
  }

  // ---- processes and nodes ------------------------------------------------------------------

  private Process startHost(Host h, List<Integer> seeds, Path data, List<String> settings) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster", "host", "--port", Integer.toString(h.port),
        "--seeds", seeds.get(0) + "," + seeds.get(1), "--data-dir", data.toString(), "--role", ROLE));
    for (String s : settings) {
      command.add("--set");
      command.add(s);
    }
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(h.log.toFile()).start();
  }

  private static Config clientConfig(int port, List<Integer> seeds, List<String> settings) {
    StringBuilder extra = new StringBuilder("commitlane.cluster.role = \"" + ROLE + "\"\n");
    settings.forEach(s -> extra.append(s).append('\n'));
    return ConfigFactory.parseString(extra.toString()).withFallback(LoopbackCluster.nodeConfig(port,
        seeds.stream().map(p -> "pekko://commitlane@127.0.0.1:" + p).toList(), null));
  }

  /** SIGTERM every host still running (coordinated shutdown: each hands its databases off and exits), then wait. */
  private static void stopHosts(List<Host> nodes) throws InterruptedException {
    for (Host h : nodes) {
      if (h.process.isAlive()) {
        h.process.destroy();
      }
    }
    for (Host h : nodes) {
      if (!h.process.waitFor(120, TimeUnit.SECONDS)) {
        h.process.destroyForcibly();
        h.process.waitFor();
      }
    }
  }

  private static void signal(Process p, String signal) throws IOException, InterruptedException {
    if (p.isAlive()) {
      new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
    }
  }

  private static DatabaseStats owner(DatabaseSharding sharding, String db, double seconds) throws Exception {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    while (true) {
      Object reply = sharding.stats(db).toCompletableFuture().get(120, TimeUnit.SECONDS);
      if (reply instanceof DatabaseStats st) {
        return st;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no owner answered for " + db + " within " + seconds + " s: " + reply);
      }
      Thread.sleep(100); // retrying a refused stats request
    }
  }

  private static void awaitMembers(ActorSystem<?> system, int n) throws InterruptedException {
    org.apache.pekko.cluster.Cluster cluster = org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(system));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (true) {
      long up = 0;
      for (Member m : cluster.state().getMembers()) {
        up += m.status() == MemberStatus.up() ? 1 : 0;
      }
      if (up >= n) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + up + " of " + n + " members came up within 180 s");
      }
      Thread.sleep(100); // polling membership while it converges
    }
  }

  private static int[] freePorts(int n) throws IOException {
    int[] ports = new int[n];
    List<ServerSocket> open = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0);
        open.add(s);
        ports[i] = s.getLocalPort();
      }
    } finally {
      for (ServerSocket s : open) {
        s.close();
      }
    }
    return ports;
  }

  private static void pause(double seconds) throws InterruptedException {
    Thread.sleep((long) (seconds * 1000)); // a stretch of load: nothing waits on it for a result
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
