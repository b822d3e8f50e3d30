package io.commitlane.bench.compare;

import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.pipeline.PipelineReport;
import io.commitlane.bench.report.Json;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code compare}'s output: one Markdown table per load (median [min-max] over the rounds), the
 * lines where commitlane is behind a peer, and the same data as JSON. The Markdown section names
 * the command, the machine and the date, so it can go into the README as it is.
 */
final class CompareReport {
  private final CompareResults results;
  private final String command;
  private final MachineInfo machine;
  private final ZonedDateTime date;
  private final Map<String, Object> settings;

  CompareReport(CompareResults results, String command, MachineInfo machine, ZonedDateTime date, Map<String, Object> settings) {
    this.results = results;
    this.command = command;
    this.machine = machine;
    this.date = date;
    this.settings = settings;
  }

  /** The tables and the "behind" lines, no preamble: what the terminal shows. */
  String tables() {
    StringBuilder sb = new StringBuilder();
    if (results.partial()) {
      sb.append(String.format(Locale.ROOT, "**PARTIAL: stopped after %d of %d measurements; medians cover the rounds that ran.**%n%n",
          results.cellsDone(), results.cellsPlanned));
    }
    for (Load load : results.measuredLoads()) {
      sb.append(table(load)).append('\n');
    }
    List<String> behind = behind();
    if (!behind.isEmpty()) {
      sb.append("Where commitlane is behind (median commits/s of the best commitlane variant against each faster peer):\n");
      behind.forEach(b -> sb.append("- ").append(b).append('\n'));
    }
    List<String> conflicts = conflictsAgainstPeers();
    if (!conflicts.isEmpty()) {
      sb.append(behind.isEmpty() ? "" : "\n").append("Conflicts against the raw peer with as many commits in flight (median conflict rates):\n");
      conflicts.forEach(c -> sb.append("- ").append(c).append('\n'));
    }
    return sb.toString();
  }

  /** A README-ready section: the command, machine and date, then {@link #tables()}. */
  String markdownSection() {
    StringBuilder sb = new StringBuilder();
    sb.append("```bash\n").append(command).append("\n```\n\n");
    sb.append("Measured ").append(date.format(DateTimeFormatter.ISO_LOCAL_DATE)).append(" on ").append(machine.describe())
        .append(". ").append(describeSettings()).append("\n\n");
    sb.append(tables());
    return sb.toString();
  }

  private String describeSettings() {
    int runs = ((Number) settings.get("runs")).intValue();
    return String.format(Locale.ROOT, "%d run%s of every variant, rotated, %s s warm-up + %s s measured each, %s-byte values, random keys from %,d%s, "
            + "WAL %s%s; the async variants (commitlane's pipeline, optimistic-async on a pool of %s threads) keep %s commits in flight "
            + "per worker, the others 1 per thread.",
        runs, runs == 1 ? "" : "s", settings.get("warmupSeconds"), settings.get("seconds"), settings.get("valueSize"),
        ((Number) settings.get("keySpace")).longValue(),
        Boolean.TRUE.equals(settings.get("readFirst")) ? " (each commit reads its keys, then writes them)" : " (blind writes: commits read nothing)",
        Boolean.TRUE.equals(settings.get("wal")) ? "on" : "off",
        Boolean.TRUE.equals(settings.get("log")) ? ", commitlane commits write the transaction log (peers do not)" : "",
        settings.get("peerCommitThreads"), settings.get("concurrency"));
  }

  private String table(Load load) {
    Variant reference = reference();
    StringBuilder sb = new StringBuilder("#### ").append(PipelineReport.label(load)).append("\n\n");
    MarkdownTable t = MarkdownTable.of("variant", "commits/s median [range]",
        "x " + (reference == null ? "-" : reference.label()) + " (paired)", "p50 µs median [range]", "p99 µs median [range]",
        "conflicts", "CPU µs/commit", "executors");
    for (Variant v : results.variants) {
      List<CompareSample> s = results.samples(load, v);
      if (s.isEmpty()) {
        t.row(v.label(), "not measured", "", "", "", "", "", "");
        continue;
      }
      t.row(v.label(),
          results.spread(load, v, c -> c.commits().commitsPerSecond()).format(),
          reference == null ? "-" : v == reference ? "1.00x" : ratioCell(results.pairedRatio(load, v, reference)),
          microsCell(results.spread(load, v, c -> c.commits().p50Nanos())),
          microsCell(results.spread(load, v, c -> c.commits().p99Nanos())),
          Units.percent(results.spread(load, v, c -> c.commits().conflictRate()).median()),
          Units.micros(results.spread(load, v, CompareSample::cpuNanosPerCommit).median()),
          executors(s));
    }
    return t.appendTo(sb).toString();
  }

  /** The ratio column's reference: raw OptimisticTransactionDB when it ran, else the first variant. */
  private Variant reference() {
    Variant raw = results.firstOf(Variant.Kind.RAW_OPTIMISTIC);
    return raw != null ? raw : results.variants.isEmpty() ? null : results.variants.get(0);
  }

  /** For each load and peer: the best commitlane variant, when its median is below the peer's. */
  List<String> behind() {
    List<String> lines = new ArrayList<>();
    for (Load load : results.measuredLoads()) {
      Variant best = null;
      double bestRate = -1;
      for (Variant v : results.variants) {
        double r = results.spread(load, v, c -> c.commits().commitsPerSecond()).median();
        if (v.kind().isCommitlane() && !Double.isNaN(r) && r > bestRate) {
          best = v;
          bestRate = r;
        }
      }
      if (best == null) {
        continue;
      }
      for (Variant peer : results.variants) {
        double r = results.spread(load, peer, c -> c.commits().commitsPerSecond()).median();
        if (!peer.kind().isCommitlane() && r > bestRate) {
          lines.add(String.format(Locale.ROOT, "%s: %s reached %s commits/s, %s of %s (%s)", PipelineReport.label(load), best.label(),
              Units.count(bestRate), Units.ratio(bestRate / r), peer.label(), Units.count(r)));
        }
      }
    }
    return lines;
  }

  /**
   * For each load: commitSync against raw OptimisticTransactionDB (both 1 commit per thread), and
   * each pipeline variant against optimistic-async (both {@code --concurrency} per worker).
   */
  List<String> conflictsAgainstPeers() {
    Variant sync = results.firstOf(Variant.Kind.RAW_OPTIMISTIC);
    Variant async = results.firstOf(Variant.Kind.RAW_OPTIMISTIC_ASYNC);
    List<String> lines = new ArrayList<>();
    for (Load load : results.measuredLoads()) {
      for (Variant v : results.variants) {
        Variant peer = v.kind() == Variant.Kind.COMMIT_SYNC ? sync : v.kind() == Variant.Kind.PIPELINE || v.kind() == Variant.Kind.LEGACY ? async : null;
        if (peer == null) {
          continue;
        }
        double mine = results.spread(load, v, c -> c.commits().conflictRate()).median();
        double theirs = results.spread(load, peer, c -> c.commits().conflictRate()).median();
        if (Double.isNaN(mine) || Double.isNaN(theirs)) {
          continue;
        }
        lines.add(String.format(Locale.ROOT, "%s: %s %s, %s %s%s", PipelineReport.label(load), v.label(), Units.percent(mine),
            peer.label(), Units.percent(theirs), theirs > 0 ? " (" + Units.ratio(mine / theirs) + ")" : ""));
      }
    }
    return lines;
  }

  /** Everything measured, with every round's sample, for scripts. */
  String json() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("command", command);
    root.put("date", date.toOffsetDateTime().toString());
    root.put("machine", machine.toJson());
    root.put("partial", results.partial());
    root.put("cellsDone", results.cellsDone());
    root.put("cellsPlanned", results.cellsPlanned);
    root.put("settings", settings);
    List<Object> loads = new ArrayList<>();
    Variant reference = reference();
    for (Load load : results.loads) {
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("load", PipelineReport.label(load));
      l.put("workers", load.threads());
      l.put("keysPerCommit", load.keys());
      List<Object> variants = new ArrayList<>();
      for (Variant v : results.variants) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("variant", v.spec());
        m.put("label", v.label());
        m.put("kind", v.kind().name().toLowerCase(Locale.ROOT));
        m.put("overrides", v.overrides().asMap());
        m.put("commitsPerSecond", spreadJson(results.spread(load, v, c -> c.commits().commitsPerSecond())));
        if (reference != null && v != reference) {
          m.put("pairedRatioTo", reference.spec());
          m.put("pairedRatio", spreadJson(results.pairedRatio(load, v, reference)));
        }
        m.put("p50Micros", spreadJson(results.spread(load, v, c -> c.commits().p50Nanos() / 1000)));
        m.put("p99Micros", spreadJson(results.spread(load, v, c -> c.commits().p99Nanos() / 1000)));
        m.put("conflictRate", spreadJson(results.spread(load, v, c -> c.commits().conflictRate())));
        m.put("cpuMicrosPerCommit", spreadJson(results.spread(load, v, c -> c.cpuNanosPerCommit() / 1000)));
        List<Object> runs = new ArrayList<>();
        for (CompareSample s : results.samples(load, v)) {
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("round", s.round() + 1);
          r.put("commits", s.commits().commits());
          r.put("conflicts", s.commits().conflicts());
          r.put("seconds", s.commits().seconds());
          r.put("commitsPerSecond", s.commits().commitsPerSecond());
          r.put("p50Micros", s.commits().p50Nanos() / 1000);
          r.put("p99Micros", s.commits().p99Nanos() / 1000);
          r.put("cpuMicrosPerCommit", s.cpuNanosPerCommit() / 1000);
          r.put("executors", s.executors() < 0 ? null : s.executors());
          runs.add(r);
        }
        m.put("runs", runs);
        variants.add(m);
      }
      l.put("variants", variants);
      loads.add(l);
    }
    root.put("loads", loads);
    root.put("behind", behind());
    root.put("conflictsAgainstPeers", conflictsAgainstPeers());
    return Json.write(root) + "\n";
  }

  private static Map<String, Object> spreadJson(Spread s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("median", s.median());
    m.put("min", s.min());
    m.put("max", s.max());
    return m;
  }

  private static String ratioCell(Spread r) {
    return Double.isNaN(r.median()) ? "-" : Units.ratio(r.median()) + " [" + Units.ratio(r.min()) + "-" + Units.ratio(r.max()) + "]";
  }

  private static String microsCell(Spread s) {
    return Double.isNaN(s.median()) ? "-" : Units.micros(s.median()) + " [" + Units.micros(s.min()) + "-" + Units.micros(s.max()) + "]";
  }

  private static String executors(List<CompareSample> samples) {
    int min = samples.stream().mapToInt(CompareSample::executors).min().orElse(-1);
    int max = samples.stream().mapToInt(CompareSample::executors).max().orElse(-1);
    return min < 0 ? "-" : min == max ? Integer.toString(min) : min + "-" + max;
  }
}
