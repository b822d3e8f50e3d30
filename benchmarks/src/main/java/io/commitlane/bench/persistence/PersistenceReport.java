package io.commitlane.bench.persistence;

import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.report.MarkdownTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The persistence benchmark's tables: per load, each peer's median [range] and its ratio to commitlane in the same run. */
final class PersistenceReport {
  private final Map<String, Map<PersistencePeer, List<PersistenceLoads.Result>>> results;
  private final List<PersistencePeer> peers;
  private final Map<PersistencePeer, String> notRun;
  private final TimingOptions timing;
  private final PersistenceBench bench;

  PersistenceReport(Map<String, Map<PersistencePeer, List<PersistenceLoads.Result>>> results, List<PersistencePeer> peers,
      Map<PersistencePeer, String> notRun, TimingOptions timing, PersistenceBench bench) {
    this.results = results;
    this.peers = peers;
    this.notRun = notRun;
    this.timing = timing;
    this.bench = bench;
  }

  /** Median of the successful results (NaN if none); lower-is-better loads are times. */
  static double median(List<PersistenceLoads.Result> rs, java.util.function.ToDoubleFunction<PersistenceLoads.Result> f) {
    List<Double> v = new ArrayList<>();
    for (PersistenceLoads.Result r : rs) {
      if (!Double.isNaN(r.value())) {
        v.add(f.applyAsDouble(r));
      }
    }
    if (v.isEmpty()) {
      return Double.NaN;
    }
    v.sort(Comparator.naturalOrder());
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /**
   * The mean CPU time of the results that have one (NaN if none): the process's CPU clock ticks in steps of about 10
   * ms, too coarse for one recovery's median, while the mean over many is exact.
   */
  static double meanCpu(List<PersistenceLoads.Result> rs) {
    return rs.stream().mapToDouble(PersistenceLoads.Result::cpuMillis).filter(d -> !Double.isNaN(d)).average().orElse(Double.NaN);
  }

  private static double min(List<PersistenceLoads.Result> rs) {
    return rs.stream().mapToDouble(PersistenceLoads.Result::value).filter(d -> !Double.isNaN(d)).min().orElse(Double.NaN);
  }

  private static double max(List<PersistenceLoads.Result> rs) {
    return rs.stream().mapToDouble(PersistenceLoads.Result::value).filter(d -> !Double.isNaN(d)).max().orElse(Double.NaN);
  }

  String markdown() {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "## Pekko Persistence journals (%d rounds, rotated; %.0f s warm-up, %.0f s measured per"
        + " throughput cell)%n%n", timing.runs, timing.warmup, timing.seconds));
    MarkdownTable durability = MarkdownTable.of("peer", "durability");
    for (PersistencePeer p : peers) {
      durability.row(p.id, p.durability);
    }
    notRun.forEach((p, why) -> durability.row(p.id, "not run: " + why));
    durability.appendTo(s);
    for (Map.Entry<String, Map<PersistencePeer, List<PersistenceLoads.Result>>> load : results.entrySet()) {
      boolean time = load.getKey().startsWith("recover");
      s.append("\n### ").append(load.getKey()).append("\n\n");
      MarkdownTable t = MarkdownTable.of("peer", (time ? "time, ms" : "rate") + " median [range]", "p50 ms", "p99 ms", "probe p99 ms",
          "commitlane" + (time ? " faster by" : " x peer"), "note");
      List<PersistenceLoads.Result> ours = load.getValue().get(PersistencePeer.COMMITLANE);
      List<PersistenceLoads.Result> oursFsync = load.getValue().get(PersistencePeer.COMMITLANE_FSYNC);
      for (Map.Entry<PersistencePeer, List<PersistenceLoads.Result>> e : load.getValue().entrySet()) {
        List<PersistenceLoads.Result> rs = e.getValue();
        double m = median(rs, PersistenceLoads.Result::value);
        // fsync'd peers are compared with commitlane's fsync mode, the others with its process mode
        boolean synced = e.getKey() == PersistencePeer.POSTGRES || e.getKey() == PersistencePeer.COMMITLANE_REPLICATED;
        List<PersistenceLoads.Result> base = synced && oursFsync != null ? oursFsync : ours;
        double b = base == null ? Double.NaN : median(base, PersistenceLoads.Result::value);
        double ratio = time ? m / b : b / m;
        double cpu = meanCpu(rs);
        String note = time && !Double.isNaN(cpu) ? String.format(Locale.ROOT, "process CPU per recovery: mean %.1f ms", cpu)
            : rs.stream().map(PersistenceLoads.Result::note).filter(n -> !n.isEmpty()).findFirst().orElse("");
        t.row(e.getKey().id + (e.getKey().survivesKill ? "" : " (does not survive kill -9)"),
            fmt(m) + " [" + fmt(min(rs)) + "-" + fmt(max(rs)) + "]", fmt(median(rs, r -> r.p50Micros() / 1e3)),
            fmt(median(rs, r -> r.p99Micros() / 1e3)), fmt(median(rs, r -> r.probeP99Micros() / 1e3)),
            e.getKey() == PersistencePeer.COMMITLANE ? "1.00x" : fmtRatio(ratio) + (synced && oursFsync != null ? " (fsync mode)" : ""),
            note);
      }
      t.appendTo(s);
      goal(load.getKey(), load.getValue()).ifPresent(g -> s.append('\n').append(g).append('\n'));
    }
    s.append(String.format(Locale.ROOT, "%nOne-event entities: %,d events for recover-one; %,d x %,d for recover-many and events-by-tag."
        + " A recovery's median [range] is over %d per round x %d rounds, each in a new actor system.%n",
        bench.oneEvents, bench.manyEntities, bench.manyEvents, bench.recoverRepeats, timing.runs));
    return s.toString();
  }

  /**
   * The replicated peer's goal at 100 entities: at least pekko-persistence-jdbc on PostgreSQL's throughput, in the
   * same run (medians); empty for other loads or when either did not run.
   */
  static java.util.Optional<String> goal(String load, Map<PersistencePeer, List<PersistenceLoads.Result>> byPeer) {
    List<PersistenceLoads.Result> replicated = byPeer.get(PersistencePeer.COMMITLANE_REPLICATED);
    List<PersistenceLoads.Result> postgres = byPeer.get(PersistencePeer.POSTGRES);
    if (!load.equals("persist-100") || replicated == null || postgres == null) {
      return java.util.Optional.empty();
    }
    double ratio = median(replicated, PersistenceLoads.Result::value) / median(postgres, PersistenceLoads.Result::value);
    String verdict = Double.isNaN(ratio) ? "not measured" : ratio >= 1.0 ? "met" : "NOT met";
    return java.util.Optional.of(String.format(Locale.ROOT, "Goal: commitlane-replicated >= 1.0x JDBC-on-PostgreSQL throughput at"
        + " 100 entities: %s (%s; three replicas in this JVM)", fmtRatio(ratio), verdict));
  }

  String json() {
    StringBuilder s = new StringBuilder("{\n  \"loads\": {\n");
    boolean firstLoad = true;
    for (Map.Entry<String, Map<PersistencePeer, List<PersistenceLoads.Result>>> load : results.entrySet()) {
      s.append(firstLoad ? "" : ",\n").append("    \"").append(load.getKey()).append("\": {");
      firstLoad = false;
      boolean firstPeer = true;
      for (Map.Entry<PersistencePeer, List<PersistenceLoads.Result>> e : load.getValue().entrySet()) {
        s.append(firstPeer ? "" : ",").append("\n      \"").append(e.getKey().id).append("\": [");
        firstPeer = false;
        List<String> values = new ArrayList<>();
        for (PersistenceLoads.Result r : e.getValue()) {
          values.add(String.format(Locale.ROOT, "{\"value\": %s, \"unit\": \"%s\", \"p50Micros\": %.1f, \"p99Micros\": %.1f,"
              + " \"probeP99Micros\": %.1f%s}", Double.isNaN(r.value()) ? "null" : String.format(Locale.ROOT, "%.1f", r.value()),
              r.unit(), r.p50Micros(), r.p99Micros(), r.probeP99Micros(),
              Double.isNaN(r.cpuMillis()) ? "" : String.format(Locale.ROOT, ", \"cpuMillis\": %.1f", r.cpuMillis())));
        }
        s.append(String.join(", ", values)).append("]");
      }
      s.append("\n    }");
    }
    return s.append("\n  }\n}\n").toString();
  }

  private static String fmt(double v) {
    if (Double.isNaN(v) || v == 0) {
      return "-";
    }
    return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String fmtRatio(double r) {
    return Double.isNaN(r) || Double.isInfinite(r) ? "-" : String.format(Locale.ROOT, "%.2fx", r);
  }
}
