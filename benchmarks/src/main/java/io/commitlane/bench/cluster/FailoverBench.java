package io.commitlane.bench.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.HostProcess;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.cluster.DatabaseSharding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Failover under load, with real processes: {@code --hosts} nodes (separate JVMs, {@link
 * HostProcess}) host the databases on one shared data directory; this JVM is a client-only node
 * that keeps {@code --in-flight} writes going ({@link FailoverLoad}), each with a request id,
 * retrying each until it is committed. Then, one at a time, the host that owns the most databases
 * (never the oldest, which runs sharding's coordinator) is killed with SIGKILL, or frozen with
 * SIGSTOP for {@code --freeze} seconds and resumed with SIGCONT ({@link OwnerFailure}). Per event
 * it reports when the client saw the victim unreachable, downed and removed, when every database
 * the victim owned committed again under a new owner, how many answers were {@code NO_REPLY}, and
 * the longest wait of an acknowledged write. At the end, with every host stopped, it opens each
 * database here and counts writes applied more than once (their log entries) and acknowledged
 * writes that are missing ({@link FailoverCheck}).
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

  /** One run: a profile, request ids on or off. */
  record Run(String profile, boolean ids, List<FailoverEvent> events, long acknowledged, long sends, Map<String, Long> refusals, long duplicates,
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
    int[] ports = HostProcess.freePorts(hosts + 1);
    List<Integer> seeds = List.of(ports[0], ports[1]);
    List<HostProcess> nodes = new ArrayList<>();
    ActorSystem<Void> client = null;
    try {
      for (int i = 0; i < hosts; i++) {
        nodes.add(HostProcess.start(i, ports[i], runDir.resolve("host-" + i + ".log"), seeds, data, ROLE, nodeSettings));
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
      OwnerFailure failure = new OwnerFailure(client, load, freeze, recoveryTimeout);
      List<FailoverEvent> done = new ArrayList<>();
      for (String kind : events) {
        Map<String, DatabaseStats> owners = new LinkedHashMap<>();
        for (String db : names) {
          owners.put(db, owner(sharding, db, 60));
        }
        FailoverEvent e = failure.inject(kind, owners, nodes);
        done.add(e);
        System.out.printf(Locale.ROOT, "  %-6s host %d (owned %d): unreachable %s s, downed %s s, removed %s s,"
                + " writes again %s s, %d NO_REPLY, longest write %.1f s%n", e.kind(), e.victim(), e.owned(), FailoverEvent.at(e.unreachable()),
            FailoverEvent.at(e.downed()), FailoverEvent.at(e.removed()), FailoverEvent.at(e.writesAgain()), e.noReplies(), e.longestWrite());
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
      HostProcess.stopAll(nodes);
      FailoverCheck.Result checked = FailoverCheck.verify(data, names, load);
      Map<String, Long> refusals = new HashMap<>();
      load.refusals.forEach((k, v) -> refusals.put(k, v.sum()));
      return new Run(profile, withIds, done, load.acks.size(), load.sends.sum(), refusals, checked.duplicates(), checked.lost(),
          load.abandoned.get(), runDir);
    } finally {
      if (client != null) {
        client.terminate();
        client.getWhenTerminated().toCompletableFuture().get(120, TimeUnit.SECONDS);
      }
      for (HostProcess h : nodes) {
        h.destroy();
      }
    }
  }

  private static String report(List<Run> runs) {
    StringBuilder t = new StringBuilder("Per event (seconds after the kill or the SIGSTOP, as the client saw them):\n\n");
    MarkdownTable events = MarkdownTable.of("profile", "request ids", "event", "victim owned", "unreachable", "downed", "removed",
        "writes succeed again", "NO_REPLY answers", "longest acknowledged write");
    for (Run r : runs) {
      for (FailoverEvent e : r.events()) {
        events.row(r.profile(), r.ids() ? "on" : "off", e.kind(), e.owned(), FailoverEvent.at(e.unreachable()),
            FailoverEvent.at(e.downed()), FailoverEvent.at(e.removed()), FailoverEvent.at(e.writesAgain()), e.noReplies(),
            String.format(Locale.ROOT, "%.1f s", e.longestWrite()));
      }
    }
    events.appendTo(t).append("\nWhole runs (checked offline, every node stopped):\n\n");
    MarkdownTable whole = MarkdownTable.of("profile", "request ids", "writes acknowledged", "sends", "refusals by reason",
        "duplicates applied", "acknowledged lost", "given up");
    for (Run r : runs) {
      whole.row(r.profile(), r.ids() ? "on" : "off", r.acknowledged(), r.sends(), new java.util.TreeMap<>(r.refusals()),
          r.duplicates(), r.lost(), r.abandoned());
    }
    return whole.appendTo(t).toString();
  }

  private static Config clientConfig(int port, List<Integer> seeds, List<String> settings) {
    StringBuilder extra = new StringBuilder("commitlane.cluster.role = \"" + ROLE + "\"\n");
    settings.forEach(s -> extra.append(s).append('\n'));
    return ConfigFactory.parseString(extra.toString()).withFallback(LoopbackCluster.nodeConfig(port,
        seeds.stream().map(p -> "pekko://commitlane@127.0.0.1:" + p).toList(), null));
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

  private static void pause(double seconds) throws InterruptedException {
    Thread.sleep((long) (seconds * 1000)); // a stretch of load: nothing waits on it for a result
  }
}
