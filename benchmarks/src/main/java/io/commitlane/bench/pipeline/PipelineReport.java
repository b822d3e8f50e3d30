package io.commitlane.bench.pipeline;

import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.pipeline.Row.Committer;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The pipeline bench's Markdown: median [range] over the rounds, ratios to the raw peer paired by
 * round (both measured in the same round, so machine noise mostly cancels), and the pipeline's targets.
 */
public final class PipelineReport {
  static final double RATIO_AT_64_KEYS = 1.2;
  static final double RATIO_AT_1_KEY_8_WORKERS = 0.7;
  static final double ONE_IN_FLIGHT_P50_MICROS = 50;
  static final double PROBE_P99_MICROS = 2000;
  static final double PROBE_P99_VS_LEGACY = 10;

  private PipelineReport() {}

  /** One table for loads measured row by row (throughput, or one caller's latency). */
  static String commitTable(String title, Map<Load, Map<Row, List<PipelineSample>>> results) {
    StringBuilder sb = new StringBuilder("### ").append(title).append("\n\n");
    MarkdownTable t = MarkdownTable.of("load", "variant", "in flight", "commits/s median [range]", "x raw optimistic (paired)",
        "conflicts", "p50 µs", "p99 µs", "executors", "queue wait p50 µs");
    for (var load : results.entrySet()) {
      List<PipelineSample> raw = raw(load.getValue());
      for (var row : load.getValue().entrySet()) {
        List<PipelineSample> s = row.getValue();
        t.row(label(load.getKey()), row.getKey().label(), row.getKey().inFlightLabel(),
            spread(s, PipelineReport::commitsPerSecond).format(),
            row.getKey().committer() == Committer.RAW_OPTIMISTIC ? "1.00x" : ratioCell(pairedRatios(s, raw)),
            Units.percent(spread(s, p -> p.commits().conflictRate()).median()),
            Units.micros(spread(s, p -> p.commits().p50Nanos()).median()),
            Units.micros(spread(s, p -> p.commits().p99Nanos()).median()),
            executors(s),
            Units.micros(spread(s, PipelineSample::queueWaitP50Nanos).median()));
      }
    }
    return t.appendTo(sb).toString();
  }

  static String probeTable(String title, Map<Row, List<ProbeSample>> results) {
    StringBuilder sb = new StringBuilder("### ").append(title).append("\n\n");
    MarkdownTable t = MarkdownTable.of("committing meanwhile", "probe p50 µs median [range]", "probe p99 µs median [range]",
        "probes", "burst commits/s", "executors");
    for (var row : results.entrySet()) {
      List<ProbeSample> s = row.getValue();
      List<PipelineSample> bursts = s.stream().map(ProbeSample::burst).filter(b -> b != null).toList();
      t.row(row.getKey().label(),
          microsCell(Spread.of(s.stream().map(ProbeSample::p50Nanos).toList())),
          microsCell(Spread.of(s.stream().map(ProbeSample::p99Nanos).toList())),
          Units.count(Spread.of(s.stream().map(p -> (double) p.probes()).toList()).median()),
          bursts.isEmpty() ? "-" : spread(bursts, PipelineReport::commitsPerSecond).format(),
          bursts.isEmpty() ? "-" : executors(bursts));
    }
    return t.appendTo(sb).toString();
  }

  /** The pipeline's targets, each met, not met, or not measured (its rows were not run). */
  static String targets(Map<Load, Map<Row, List<PipelineSample>>> throughput, Map<Load, Map<Row, List<PipelineSample>>> latency,
      Map<Row, List<ProbeSample>> probe) {
    List<String> lines = new ArrayList<>();
    for (var load : throughput.entrySet()) {
      Load l = load.getKey();
      double target = l.keys() == 64 ? RATIO_AT_64_KEYS : l.keys() == 1 && l.threads() == 8 ? RATIO_AT_1_KEY_8_WORKERS : Double.NaN;
      if (Double.isNaN(target)) {
        continue;
      }
      if (raw(load.getValue()).isEmpty()) {
        lines.add("- not measured: " + label(l) + " against raw optimistic (needs --variants optimistic)");
        continue;
      }
      for (var row : load.getValue().entrySet()) {
        if (row.getKey().committer() == Committer.THREADS && !row.getKey().log()) {
          double ratio = Spread.of(pairedRatios(row.getValue(), raw(load.getValue()))).median();
          lines.add(verdict(ratio >= target, String.format(Locale.ROOT, "%s, %s: %s raw optimistic commits/s (paired median; target >= %.1fx)",
              label(l), row.getKey().label(), Units.ratio(ratio), target)));
        }
      }
    }
    if (lines.isEmpty()) {
      lines.add("- not measured: commits/s against raw optimistic (needs --loads with 64 keys or 8x1, and --variants threads,optimistic)");
    }
    List<PipelineSample> oneKey = latency.getOrDefault(new Load(1, 1), Map.of()).get(new Row(Committer.THREADS, 1, false));
    if (oneKey == null) {
      lines.add("- not measured: one caller, one commit in flight, 1 key (needs --latency-keys 1 and --variants threads)");
    } else {
      double p50 = spread(oneKey, p -> p.commits().p50Nanos()).median() / 1000;
      lines.add(verdict(p50 < ONE_IN_FLIGHT_P50_MICROS, String.format(Locale.ROOT,
          "1 caller, 1 commit in flight, 1 key, commitlane threads: p50 %.1f µs (target < %.0f µs)", p50, ONE_IN_FLIGHT_P50_MICROS)));
    }
    double threadsP99 = probeP99(probe, Committer.THREADS);
    double legacyP99 = probeP99(probe, Committer.LEGACY);
    if (Double.isNaN(threadsP99) || Double.isNaN(legacyP99)) {
      lines.add("- not measured: default-dispatcher probe (needs --scenarios probe and --variants threads,legacy)");
    } else {
      lines.add(verdict(threadsP99 < PROBE_P99_MICROS * 1000, String.format(Locale.ROOT,
          "default-dispatcher probe p99 in threads mode: %.1f µs (target < %.0f µs)", threadsP99 / 1000, PROBE_P99_MICROS)));
      double better = legacyP99 / threadsP99;
      lines.add(verdict(better >= PROBE_P99_VS_LEGACY, String.format(Locale.ROOT,
          "default-dispatcher probe p99, legacy / threads: %s (%.1f / %.1f µs; target >= %.0fx)",
          Units.ratio(better), legacyP99 / 1000, threadsP99 / 1000, PROBE_P99_VS_LEGACY)));
    }
    return "### Targets\n\n" + String.join("\n", lines) + "\n";
  }

  static final double MERGED_VS_UNMERGED_8X1 = 1.5;
  static final double MERGED_VS_RAW_8X1 = 1.5;
  static final double MERGED_NO_REGRESSION = 0.95;

  /**
   * The merged write groups' targets: merging on against off (both measured in each round) and against the raw
   * peer at 8 workers x 1 key; no regression at 64 keys or for one caller with one commit in flight.
   */
  static String writeGroupTargets(Map<Load, Map<Row, List<PipelineSample>>> throughput,
      Map<Load, Map<Row, List<PipelineSample>>> latency) {
    List<String> lines = new ArrayList<>();
    for (var load : throughput.entrySet()) {
      Load l = load.getKey();
      for (var row : load.getValue().entrySet()) {
        Row merged = row.getKey();
        List<PipelineSample> off = load.getValue().get(new Row(Committer.UNMERGED, merged.inFlight(), merged.log()));
        if (merged.committer() != Committer.THREADS || off == null) {
          continue;
        }
        double vsOff = Spread.of(pairedRatios(row.getValue(), off)).median();
        String what = label(l) + ", " + merged.inFlight() + " in flight" + (merged.log() ? " + log" : "");
        if (l.keys() == 1 && l.threads() == 8) {
          lines.add(verdict(vsOff >= MERGED_VS_UNMERGED_8X1, String.format(Locale.ROOT,
              "%s: merging on %s merging off (paired median; target >= %.1fx)", what, Units.ratio(vsOff), MERGED_VS_UNMERGED_8X1)));
          List<PipelineSample> raw = raw(load.getValue());
          if (!raw.isEmpty() && !merged.log()) {
            double vsRaw = Spread.of(pairedRatios(row.getValue(), raw)).median();
            lines.add(verdict(vsRaw >= MERGED_VS_RAW_8X1, String.format(Locale.ROOT,
                "%s: merging on %s raw optimistic (paired median; target >= %.1fx)", what, Units.ratio(vsRaw), MERGED_VS_RAW_8X1)));
          }
        } else if (l.keys() == 64) {
          lines.add(verdict(vsOff >= MERGED_NO_REGRESSION, String.format(Locale.ROOT,
              "%s: merging on %s merging off (paired median; target >= %.2fx)", what, Units.ratio(vsOff), MERGED_NO_REGRESSION)));
        }
      }
    }
    for (var load : latency.entrySet()) {
      List<PipelineSample> on = load.getValue().get(new Row(Committer.THREADS, 1, false));
      List<PipelineSample> off = load.getValue().get(new Row(Committer.UNMERGED, 1, false));
      if (on != null && off != null) {
        double vsOff = Spread.of(pairedRatios(on, off)).median();
        lines.add(verdict(vsOff >= MERGED_NO_REGRESSION, String.format(Locale.ROOT,
            "%s, 1 in flight: merging on %s merging off in commits/s (paired median; target >= %.2fx)", label(load.getKey()),
            Units.ratio(vsOff), MERGED_NO_REGRESSION)));
      }
    }
    if (lines.isEmpty()) {
      lines.add("- not measured: merged write groups (needs --variants threads,unmerged and --loads 8x1 or 64 keys)");
    }
    return "### Targets (merged write groups)\n\n" + String.join("\n", lines) + "\n";
  }

  /** Conflicts may exceed the raw peer's at the same load and depth by at most this factor. */
  static final double CONFLICTS_VS_RAW = 1.2;

  /**
   * Conflict rates against the raw peer with the same commits in flight: commitSync against raw
   * commits from plain threads (1 each), the pipeline's rows against the async raw peer at their depth.
   */
  static String conflictTargets(Map<Load, Map<Row, List<PipelineSample>>> throughput) {
    List<String> lines = new ArrayList<>();
    for (var load : throughput.entrySet()) {
      Map<Row, List<PipelineSample>> rows = load.getValue();
      for (var row : rows.entrySet()) {
        Row r = row.getKey();
        List<PipelineSample> peer = switch (r.committer()) {
          case COMMIT_SYNC -> raw(rows);
          case THREADS, UNMERGED, LEGACY -> rows.getOrDefault(new Row(Committer.RAW_OPTIMISTIC_ASYNC, r.inFlight(), false), List.of());
          default -> null;
        };
        if (peer == null || r.log()) {
          continue;
        }
        if (peer.isEmpty()) {
          lines.add("- not measured: " + label(load.getKey()) + ", " + r.label() + " against its raw peer (needs --variants "
              + (r.committer() == Committer.COMMIT_SYNC ? "optimistic" : "optimistic-async") + ")");
          continue;
        }
        double mine = spread(row.getValue(), p -> p.commits().conflictRate()).median();
        double theirs = spread(peer, p -> p.commits().conflictRate()).median();
        lines.add(verdict(mine <= theirs * CONFLICTS_VS_RAW, String.format(Locale.ROOT,
            "%s, %s: conflicts %s against %s for %s (medians; target <= %.1fx)", label(load.getKey()), r.label(), Units.percent(mine),
            Units.percent(theirs), r.committer() == Committer.COMMIT_SYNC ? "raw optimistic" : "raw optimistic async", CONFLICTS_VS_RAW)));
      }
    }
    if (lines.isEmpty()) {
      lines.add("- not measured: conflicts against the raw peers (needs --variants threads,optimistic-async or commit-sync,optimistic)");
    }
    return "### Targets (conflicts against the raw peer at the same depth)\n\n" + String.join("\n", lines) + "\n";
  }

  /** "4 workers x 64 keys"; a single worker is "1 caller". */
  public static String label(Load load) {
    String who = load.threads() == 1 ? "1 caller" : load.threads() + " workers";
    return who + " x " + String.format(Locale.ROOT, "%,d", load.keys()) + (load.keys() == 1 ? " key" : " keys");
  }

  private static String verdict(boolean met, String what) {
    return "- **" + (met ? "met" : "not met") + "**: " + what;
  }

  private static double probeP99(Map<Row, List<ProbeSample>> probe, Committer mode) {
    return probe.entrySet().stream().filter(e -> e.getKey().committer() == mode).findFirst()
        .map(e -> Spread.of(e.getValue().stream().map(ProbeSample::p99Nanos).toList()).median()).orElse(Double.NaN);
  }

  private static List<PipelineSample> raw(Map<Row, List<PipelineSample>> rows) {
    return rows.getOrDefault(new Row(Committer.RAW_OPTIMISTIC, 1, false), List.of());
  }

  /** Round i of a row against round i of the peer. */
  private static List<Double> pairedRatios(List<PipelineSample> row, List<PipelineSample> peer) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(row.size(), peer.size()); i++) {
      ratios.add(commitsPerSecond(row.get(i)) / commitsPerSecond(peer.get(i)));
    }
    return ratios;
  }

  private static double commitsPerSecond(PipelineSample s) {
    return s.commits().commitsPerSecond();
  }

  private static Spread spread(List<PipelineSample> samples, ToDoubleFunction<PipelineSample> f) {
    return Spread.of(samples.stream().map(s -> f.applyAsDouble(s)).toList());
  }

  private static String ratioCell(List<Double> ratios) {
    Spread r = Spread.of(ratios);
    return Double.isNaN(r.median()) ? "-" : Units.ratio(r.median()) + " [" + Units.ratio(r.min()) + "-" + Units.ratio(r.max()) + "]";
  }

  private static String microsCell(Spread s) {
    return Units.micros(s.median()) + " [" + Units.micros(s.min()) + "-" + Units.micros(s.max()) + "]";
  }

  /** "2", or "1-2" when the rounds differed; "-" for rows without a pipeline. */
  private static String executors(List<PipelineSample> samples) {
    int min = samples.stream().mapToInt(PipelineSample::executorsStarted).min().orElse(-1);
    int max = samples.stream().mapToInt(PipelineSample::executorsStarted).max().orElse(-1);
    return min < 0 ? "-" : min == max ? Integer.toString(min) : min + "-" + max;
  }
}
