package io.commitlane.bench.replication;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.Json;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.RunHeader;
import io.commitlane.bench.report.Units;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * {@code replication}'s output: a Markdown table per part (medians with [min-max] over rounds or
 * trials), the failover goal checked, and every measurement as CSV and JSON. Parts that did not
 * run are left out; a part that failed says so.
 */
final class ReplicationReport {
  /** The failover goal: the group acknowledges commits again at most this long after its leader stops. */
  static final double FAILOVER_GOAL_SECONDS = 2.0;
  /** The single-owner cluster's failover, quoted from docs/cluster.md ("Measured failover"), not measured here. */
  static final String SINGLE_OWNER_FAILOVER = "For comparison, not measured in this run: the single-owner cluster wrote again 47-50 s after"
      + " its owner was killed or frozen with Pekko's and commitlane's default settings, and 10-12 s after a kill with the `fast` profile"
      + " (docs/cluster.md, \"Measured failover\").";

  /** How the probe columns and goal lines are measured. */
  static final String PROBE_METHOD = "Default-dispatcher probe (medians [range] over rounds, µs): during each measured window a plain thread"
      + " submits a trivial task every " + ApplicationDispatcher.PERIOD.toMillis() + " ms to the default dispatcher of a Pekko actor system"
      + " in this JVM (an application's, beside the three replica nodes, so one dispatcher shares the cores with every node), and the task"
      + " records how long it waited to run. The replicated handle's commit path runs on no Pekko dispatcher (Ratis's and gRPC's threads"
      + " and each node's own completion threads), so the probe measures what the replicated database's threads leave to an application's"
      + " dispatcher on the same cores; etcd's cells give the machine's baseline under a comparable load (its members are other processes"
      + " on the same cores, its clients in this JVM). Goal: a replicated commit never blocks a dispatcher, so the probe's p99 stays at"
      + " most 1 ms on every node during the load.";

  private final String command;
  private final MachineInfo machine;
  private final ZonedDateTime date;
  private final Map<String, Object> settings;
  final List<ReplicationThroughput.Sample> throughput = new ArrayList<>();
  final List<ReplicationFailover.Trial> failover = new ArrayList<>();
  final List<ReplicationSoak.Sample> soakSamples = new ArrayList<>();
  ReplicationCatchUp.Result catchUp;
  ReplicationSoak.Result soak;
  /** Parts that threw, with what they threw. */
  final Map<String, String> failures = new LinkedHashMap<>();
  boolean partial;
  /** What the run says about the etcd peer (its version, or that it is not installed); null when it was not asked for. */
  String etcdNote;

  ReplicationReport(String command, MachineInfo machine, ZonedDateTime date, Map<String, Object> settings) {
    this.command = command;
    this.machine = machine;
    this.date = date;
    this.settings = settings;
  }

  boolean failed() {
    return !failures.isEmpty();
  }

  /** What the terminal shows. */
  String tables() {
    StringBuilder sb = new StringBuilder();
    if (partial) {
      sb.append("**PARTIAL: stopped before the end; the tables cover what ran.**\n\n");
    }
    throughputTables(sb);
    failoverTable(sb);
    catchUpTable(sb);
    soakTable(sb);
    failures.forEach((part, error) -> sb.append("**").append(part).append(" failed**: ").append(error).append("\n\n"));
    return sb.toString();
  }

  private void throughputTables(StringBuilder sb) {
    if (etcdNote != null) {
      sb.append(etcdNote).append("\n\n");
    }
    if (throughput.isEmpty()) {
      return;
    }
    sb.append("### Commits/s and latency: replicated against etcd and the single owner\n\n");
    for (ThroughputLoad load : ThroughputLoad.ALL) {
      List<ReplicationThroughput.Sample> mine = throughput.stream().filter(s -> s.load().equals(load.label())).toList();
      if (mine.isEmpty()) {
        continue;
      }
      sb.append(load.label()).append(load.shape().keys() == 1 && !load.shape().reads() ? ", one-key commits, " : ", ")
          .append(ShardedWriteLoad.VALUE_BYTES).append("-byte values:\n\n");
      MarkdownTable t = MarkdownTable.of("variant", "commits/s median [range]", "x etcd (paired)", "x single owner (paired)",
          "p50 µs median [range]", "p99 µs median [range]", "CPU µs/commit", "failed/s", "conflicted/s",
          "probe p50 µs median [range]", "probe p99 µs median [range]");
      for (String v : ReplicationThroughput.variants(load)) {
        List<ReplicationThroughput.Sample> runs = mine.stream().filter(s -> s.variant().equals(v)).toList();
        if (runs.isEmpty()) {
          continue;
        }
        t.row(v, spread(runs, s -> s.rates().committed()).format(),
            ratio(pairedRatio(mine, v, ReplicationThroughput.etcdBaseline(v), s -> s.rates().committed())),
            ratio(pairedRatio(mine, v, ReplicationThroughput.singleOwnerBaseline(v), s -> s.rates().committed())),
            micros(spread(runs, s -> s.rates().p50Nanos())),
            micros(spread(runs, s -> s.rates().p99Nanos())),
            Units.micros(spread(runs, ReplicationThroughput.Sample::cpuNanosPerCommit).median()),
            Units.count(spread(runs, s -> s.rates().failed()).median()),
            load.shape().reads() ? Units.count(spread(runs, s -> s.rates().conflicted()).median()) : "-",
            micros(probeSpread(runs, ProbeSample::p50Nanos)), micros(probeSpread(runs, ProbeSample::p99Nanos)));
      }
      t.appendTo(sb).append('\n');
    }
    List<String> goals = goals();
    if (!goals.isEmpty()) {
      sb.append("Goals, commitlane replicated against etcd in the same round (paired ratios per round; median [range]):\n\n");
      goals.forEach(g -> sb.append("- ").append(g).append('\n'));
      sb.append('\n');
    }
    List<String> probeGoals = probeGoals();
    if (!probeGoals.isEmpty()) {
      sb.append(PROBE_METHOD).append("\n\n");
      probeGoals.forEach(g -> sb.append("- ").append(g).append('\n'));
      sb.append('\n');
    }
  }

  /**
   * Per load, each replicated variant's default-dispatcher probe p99 (median [range] over rounds)
   * against {@link ApplicationDispatcher#GOAL_P99_NANOS}, with etcd's in the same load beside it
   * for reference (the machine's baseline under a comparable load).
   */
  List<String> probeGoals() {
    List<String> out = new ArrayList<>();
    for (ThroughputLoad load : ThroughputLoad.ALL) {
      List<ReplicationThroughput.Sample> mine = throughput.stream().filter(s -> s.load().equals(load.label())).toList();
      for (String v : ReplicationThroughput.variants(load)) {
        if (!ReplicationThroughput.replicated(v)) {
          continue;
        }
        Spread p99 = probeSpread(mine.stream().filter(s -> s.variant().equals(v)).toList(), ProbeSample::p99Nanos);
        if (Double.isNaN(p99.median())) {
          continue;
        }
        String base = ReplicationThroughput.etcdBaseline(v);
        Spread etcd = probeSpread(mine.stream().filter(s -> s.variant().equals(base)).toList(), ProbeSample::p99Nanos);
        out.add(String.format(Locale.ROOT, "%s, %s: default-dispatcher probe p99 at most %.0f ms during the load: %s µs: %s (etcd in the"
                + " same load, for reference: %s)", load.label(), v, ApplicationDispatcher.GOAL_P99_NANOS / 1e6, micros(p99),
            p99.median() <= ApplicationDispatcher.GOAL_P99_NANOS ? "met" : "**not met**",
            Double.isNaN(etcd.median()) ? "not measured" : micros(etcd) + " µs"));
      }
    }
    return out;
  }

  /**
   * Each goal with what this run measured: commits/s against etcd per load, latency at 1 x 1, and
   * a follower's read-modify-write against a blind commit at one in flight (same round).
   */
  List<String> goals() {
    List<String> out = new ArrayList<>();
    goal(out, ThroughputLoad.ONE, ReplicationThroughput.REPLICATED_ONE, ReplicationThroughput.ETCD_ONE, s -> s.rates().committed(), 1.0,
        true, "commits/s");
    goal(out, ThroughputLoad.ONE, ReplicationThroughput.REPLICATED_ONE, ReplicationThroughput.ETCD_ONE, s -> s.rates().p50Nanos(), 1.0,
        false, "p50 latency");
    goal(out, ThroughputLoad.EIGHT, ReplicationThroughput.REPLICATED_EIGHT, ReplicationThroughput.ETCD_EIGHT, s -> s.rates().committed(), 2.0,
        true, "commits/s");
    goal(out, ThroughputLoad.EIGHT_DEEP, ReplicationThroughput.REPLICATED_EIGHT, ReplicationThroughput.ETCD_EIGHT,
        s -> s.rates().committed(), 2.0, true, "commits/s");
    goal(out, ThroughputLoad.SIXTEEN_KEYS, ReplicationThroughput.REPLICATED_EIGHT, ReplicationThroughput.ETCD_EIGHT,
        s -> s.rates().committed(), 4.0, true, "commits/s");
    for (String rmw : List.of(ReplicationThroughput.REPLICATED_RMW, ReplicationThroughput.REPLICATED_EXPECTING_RMW)) {
      List<Double> ratios = new ArrayList<>();
      for (ReplicationThroughput.Sample c : throughput) {
        if (c.load().equals(ThroughputLoad.CONDITIONAL.label()) && c.variant().equals(rmw)) {
          throughput.stream().filter(b -> b.round() == c.round() && b.load().equals(ThroughputLoad.ONE.label())
                  && b.variant().equals(ReplicationThroughput.REPLICATED_ONE))
              .forEach(b -> ratios.add(c.rates().p50Nanos() / b.rates().p50Nanos()));
        }
      }
      if (!ratios.isEmpty()) {
        Spread r = Spread.of(ratios);
        out.add(String.format(Locale.ROOT, "%s: a follower's read-modify-write (%s) at most 2x the p50 of a blind commit at 1 x 1: %s [%s-%s]: %s",
            ThroughputLoad.CONDITIONAL.label(), rmw, Units.ratio(r.median()), Units.ratio(r.min()), Units.ratio(r.max()),
            r.median() <= 2.0 ? "met" : "**not met**"));
      }
    }
    return out;
  }

  private void goal(List<String> out, ThroughputLoad load, String ours, String etcd, ToDoubleFunction<ReplicationThroughput.Sample> metric,
      double target, boolean higherIsBetter, String what) {
    List<ReplicationThroughput.Sample> mine = throughput.stream().filter(s -> s.load().equals(load.label())).toList();
    Spread r = pairedRatio(mine, ours, etcd, metric);
    if (r == null || Double.isNaN(r.median())) {
      return;
    }
    boolean met = higherIsBetter ? r.median() >= target : r.median() <= target;
    out.add(String.format(Locale.ROOT, "%s: %s, commitlane/etcd %s [%s-%s], goal %s %s: %s", load.label(), what, Units.ratio(r.median()),
        Units.ratio(r.min()), Units.ratio(r.max()), higherIsBetter ? "at least" : "at most", Units.ratio(target), met ? "met" : "**not met**"));
  }

  private void failoverTable(StringBuilder sb) {
    if (failover.isEmpty()) {
      return;
    }
    sb.append("### Failover: the leader's node stops\n\n");
    sb.append("Seconds after `close()` was called on the leader's node. The first acknowledged commit is the first one (a probe's or a client's)"
        + " acknowledged once a new leader was seen or `close()` had returned, whichever came first.\n\n");
    MarkdownTable table = MarkdownTable.of("trial", "stopped", "close() returned", "new leader (term)", "leads at",
        "first acknowledged commit", "probes sent", "client commits failed", "rejoined in");
    for (ReplicationFailover.Trial t : failover) {
      table.row(t.trial() + 1, t.stopped() + " (term " + t.oldTerm() + ")", String.format(Locale.ROOT, "+%.2f", t.closeSeconds()),
          t.newLeader() + " (" + t.newTerm() + ")", "+" + ReplicationFailover.seconds(t.electedSeconds()),
          "**+" + ReplicationFailover.seconds(t.firstAckSeconds()) + "**", t.probes(), t.backgroundFailures(),
          t.rejoinError() == null ? ReplicationFailover.seconds(t.rejoinSeconds()) + " s" : "**did not catch up**");
    }
    table.appendTo(sb).append('\n').append(failoverGoal()).append("\n\n").append(SINGLE_OWNER_FAILOVER).append("\n\n");
  }

  /** The goal line: median and range of the first acknowledged commit against {@link #FAILOVER_GOAL_SECONDS}. */
  String failoverGoal() {
    List<Double> acks = failover.stream().map(ReplicationFailover.Trial::firstAckSeconds).toList();
    long missing = acks.stream().filter(a -> a.isNaN()).count();
    Spread s = Spread.of(acks.stream().filter(a -> !a.isNaN()).toList());
    Spread elected = Spread.of(failover.stream().map(ReplicationFailover.Trial::electedSeconds).filter(a -> !a.isNaN()).toList());
    boolean met = missing == 0 && s.median() <= FAILOVER_GOAL_SECONDS;
    return String.format(Locale.ROOT, "Failover over %d trial%s: first acknowledged commit after %s s median [%s-%s], a new leader after %s s"
            + " median [%s-%s]%s; goal at most %.0f s: %s", failover.size(), failover.size() == 1 ? "" : "s", ReplicationFailover.seconds(s.median()),
        ReplicationFailover.seconds(s.min()), ReplicationFailover.seconds(s.max()), ReplicationFailover.seconds(elected.median()),
        ReplicationFailover.seconds(elected.min()), ReplicationFailover.seconds(elected.max()),
        missing == 0 ? "" : " (" + missing + " trial" + (missing == 1 ? "" : "s") + " with no acknowledged commit)", FAILOVER_GOAL_SECONDS,
        met ? "met" : "**not met**");
  }

  private void catchUpTable(StringBuilder sb) {
    if (catchUp == null) {
      return;
    }
    ReplicationCatchUp.Result c = catchUp;
    sb.append("### Catch-up of a replica ").append(String.format(Locale.ROOT, "%,d", c.commits())).append(" commits behind\n\n");
    MarkdownTable.of("commits behind", "committed at (in flight)", "follower", "start() took", "caught up after start", "by",
            "leader applied / snapshot / log start")
        .row(String.format(Locale.ROOT, "%,d", c.commits()), Units.count(c.commitsPerSecond()) + " commits/s (" + c.inFlight() + ")",
            c.follower(), String.format(Locale.ROOT, "%.2f s", c.startSeconds()),
            String.format(Locale.ROOT, "**%.2f s**", c.caughtUpSeconds()), c.mode(),
            c.leaderApplied() + " / " + c.leaderSnapshot() + " / " + c.leaderLogStart())
        .appendTo(sb);
    sb.append("\nHow it caught up: ").append(c.mode()).append(": ").append(c.evidence()).append(".\n\n");
  }

  private void soakTable(StringBuilder sb) {
    if (soak == null) {
      return;
    }
    ReplicationSoak.Result s = soak;
    sb.append(String.format(Locale.ROOT, "### Raft log size under load (%.0f s, %s)%n%n", s.seconds(), s.commits() == 0 ? "commits not counted"
        : Units.count(s.commitsPerSecond()) + " commits/s, " + s.failures() + " failed"));
    MarkdownTable t = MarkdownTable.of("node", "log max", "log at the end", "entries max", "entries at the end", "purges seen",
        "last snapshot index", "verdict");
    for (ReplicationSoak.NodeSummary n : s.nodes()) {
      t.row(n.node(), Units.bytes(n.maxBytes()), Units.bytes(n.endBytes()), String.format(Locale.ROOT, "%,d", n.maxEntries()),
          String.format(Locale.ROOT, "%,d", n.endEntries()), n.purges(), n.lastSnapshot(), n.verdict());
    }
    t.appendTo(sb);
    sb.append("\nBounded means: ").append(ReplicationSoak.RULE).append(". Log size: the files under `raft/<group>/current` of each node's"
        + " directory; Ratis preallocates the segment it writes (up to 4 MiB), so the size moves in steps while the entries grow.\n\n");
  }

  /** A README-ready section: the command, the machine and date, what was run, then {@link #tables()}. */
  String markdownSection() {
    return "```bash\n" + command + "\n```\n\nMeasured " + date.format(DateTimeFormatter.ISO_LOCAL_DATE) + " on " + machine.describe() + ". "
        + settings.get("description") + "\n\n" + tables();
  }

  /** Every throughput measurement. */
  String throughputCsv() {
    StringBuilder sb = new StringBuilder(
        "round,load,variant,commits_per_second,failed_per_second,conflicted_per_second,p50_micros,p99_micros,cpu_micros_per_commit,"
            + "probe_p50_micros,probe_p99_micros,probe_tasks\n");
    for (ReplicationThroughput.Sample s : throughput) {
      sb.append(s.round() + 1).append(",\"").append(s.load()).append("\",\"").append(s.variant()).append("\",")
          .append(Units.csv(s.rates().committed())).append(',').append(Units.csv(s.rates().failed())).append(',')
          .append(Units.csv(s.rates().conflicted())).append(',')
          .append(Units.csv(s.rates().p50Nanos() / 1000)).append(',').append(Units.csv(s.rates().p99Nanos() / 1000)).append(',')
          .append(Units.csv(s.cpuNanosPerCommit() / 1000)).append(',')
          .append(s.probe() == null ? "" : Units.csv(s.probe().p50Nanos() / 1000)).append(',')
          .append(s.probe() == null ? "" : Units.csv(s.probe().p99Nanos() / 1000)).append(',')
          .append(s.probe() == null ? "" : String.valueOf(s.probe().probes())).append('\n');
    }
    return sb.toString();
  }

  /** Every soak sample. */
  String soakCsv() {
    StringBuilder sb = new StringBuilder("seconds,node,log_bytes,applied_index,snapshot_index,log_start_index\n");
    for (ReplicationSoak.Sample s : soakSamples) {
      sb.append(Units.csv(s.atSeconds())).append(',').append(s.node()).append(',').append(s.logBytes()).append(',').append(s.appliedIndex())
          .append(',').append(s.snapshotIndex()).append(',').append(s.logStartIndex()).append('\n');
    }
    return sb.toString();
  }

  String json() {
    Map<String, Object> m = RunHeader.json(command, date, machine, partial, settings);
    m.put("failures", failures);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ReplicationThroughput.Sample s : throughput) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("round", s.round() + 1);
      r.put("load", s.load());
      r.put("variant", s.variant());
      r.put("commitsPerSecond", s.rates().committed());
      r.put("failedPerSecond", s.rates().failed());
      r.put("conflictedPerSecond", s.rates().conflicted());
      r.put("p50Micros", s.rates().p50Nanos() / 1000);
      r.put("p99Micros", s.rates().p99Nanos() / 1000);
      r.put("cpuMicrosPerCommit", s.cpuNanosPerCommit() / 1000);
      r.put("probeP50Micros", s.probe() == null ? null : s.probe().p50Nanos() / 1000);
      r.put("probeP99Micros", s.probe() == null ? null : s.probe().p99Nanos() / 1000);
      r.put("probeTasks", s.probe() == null ? null : s.probe().probes());
      rows.add(r);
    }
    m.put("throughput", rows);
    if (etcdNote != null) {
      m.put("etcd", etcdNote);
    }
    if (!throughput.isEmpty()) {
      m.put("goals", goals());
      m.put("dispatcherProbe", PROBE_METHOD);
      m.put("dispatcherProbeGoals", probeGoals());
    }
    List<Map<String, Object>> trials = new ArrayList<>();
    for (ReplicationFailover.Trial t : failover) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("trial", t.trial() + 1);
      r.put("stopped", t.stopped());
      r.put("oldTerm", t.oldTerm());
      r.put("closeSeconds", t.closeSeconds());
      r.put("newLeader", t.newLeader());
      r.put("newTerm", t.newTerm());
      r.put("electedSeconds", t.electedSeconds());
      r.put("firstAckSeconds", t.firstAckSeconds());
      r.put("probes", t.probes());
      r.put("backgroundFailures", t.backgroundFailures());
      r.put("rejoinSeconds", t.rejoinSeconds());
      r.put("rejoinError", t.rejoinError());
      trials.add(r);
    }
    m.put("failover", trials);
    if (!failover.isEmpty()) {
      m.put("failoverGoal", failoverGoal());
      m.put("singleOwnerFailover", SINGLE_OWNER_FAILOVER);
    }
    if (catchUp != null) {
      ReplicationCatchUp.Result c = catchUp;
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("commits", c.commits());
      r.put("inFlight", c.inFlight());
      r.put("commitSeconds", c.commitSeconds());
      r.put("commitsPerSecond", c.commitsPerSecond());
      r.put("failures", c.failures());
      r.put("follower", c.follower());
      r.put("appliedAtStop", c.appliedAtStop());
      r.put("matchAtStop", c.matchAtStop());
      r.put("leaderApplied", c.leaderApplied());
      r.put("leaderSnapshotIndex", c.leaderSnapshot());
      r.put("leaderLogStartIndex", c.leaderLogStart());
      r.put("startSeconds", c.startSeconds());
      r.put("caughtUpSeconds", c.caughtUpSeconds());
      r.put("firstAdvance", c.firstAdvance());
      r.put("afterAppliedIndex", c.after().appliedIndex());
      r.put("afterSnapshotIndex", c.after().snapshotIndex());
      r.put("afterLogStartIndex", c.after().logStartIndex());
      r.put("mode", c.mode());
      r.put("evidence", c.evidence());
      m.put("catchUp", r);
    }
    if (soak != null) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("seconds", soak.seconds());
      r.put("commits", soak.commits());
      r.put("commitsPerSecond", soak.commitsPerSecond());
      r.put("failures", soak.failures());
      List<Map<String, Object>> nodes = new ArrayList<>();
      for (ReplicationSoak.NodeSummary n : soak.nodes()) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("node", n.node());
        x.put("maxBytes", n.maxBytes());
        x.put("endBytes", n.endBytes());
        x.put("maxEntries", n.maxEntries());
        x.put("endEntries", n.endEntries());
        x.put("purges", n.purges());
        x.put("lastSnapshotIndex", n.lastSnapshot());
        x.put("bounded", n.bounded());
        x.put("verdict", n.verdict());
        nodes.add(x);
      }
      r.put("nodes", nodes);
      r.put("rule", ReplicationSoak.RULE);
      m.put("soak", r);
    }
    return Json.write(m);
  }

  /** {@code v}'s {@code metric} over {@code base}'s, round by round (rounds where both ran); null without a baseline. */
  private static Spread pairedRatio(List<ReplicationThroughput.Sample> samples, String v, String base,
      ToDoubleFunction<ReplicationThroughput.Sample> metric) {
    if (base == null) {
      return null;
    }
    List<Double> ratios = new ArrayList<>();
    for (ReplicationThroughput.Sample s : samples) {
      if (s.variant().equals(v)) {
        for (ReplicationThroughput.Sample b : samples) {
          if (b.variant().equals(base) && b.round() == s.round()) {
            ratios.add(metric.applyAsDouble(s) / metric.applyAsDouble(b));
          }
        }
      }
    }
    return Spread.of(ratios);
  }

  private static String ratio(Spread r) {
    return r == null || Double.isNaN(r.median()) ? "-" : Units.ratio(r.median()) + " [" + Units.ratio(r.min()) + "-" + Units.ratio(r.max()) + "]";
  }

  private static Spread spread(List<ReplicationThroughput.Sample> samples, ToDoubleFunction<ReplicationThroughput.Sample> metric) {
    return Spread.of(samples.stream().map(metric::applyAsDouble).filter(d -> !Double.isNaN(d)).toList());
  }

  private static Spread probeSpread(List<ReplicationThroughput.Sample> samples, ToDoubleFunction<ProbeSample> metric) {
    return Spread.of(samples.stream().filter(s -> s.probe() != null).map(s -> metric.applyAsDouble(s.probe())).toList());
  }

  private static String micros(Spread s) {
    return Double.isNaN(s.median()) ? "-" : String.format(Locale.ROOT, "%.1f [%.1f-%.1f]", s.median() / 1000, s.min() / 1000, s.max() / 1000);
  }
}
