package io.commitlane.bench.strain;

import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.harness.Variant;
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
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * {@code strain}'s output: one Markdown row per leg kind (median [min-max] over the rounds), the
 * issue's two goals checked against the pipeline modes, and every leg's numbers as CSV and JSON.
 */
final class StrainReport {
  /** The goals: the pipeline commits at least as fast as legacy, and the probe waits at most 2 ms at p99. */
  static final double GOAL_RATIO_TO_LEGACY = 1.0;
  static final double GOAL_PROBE_P99_NANOS = 2_000_000;

  private static final List<String> CSV_COLUMNS = List.of("round", "variant", "label", "commits_per_second", "commits", "conflicts",
      "seconds", "p50_micros", "p99_micros", "cpu_micros_per_commit", "probe_p50_micros", "probe_p99_micros", "probes", "stall_millis",
      "stall_share", "pending_compaction_bytes_max", "pending_compaction_bytes_end", "level0_files_max", "level0_files_end");

  private final List<Variant> legs;
  /** The legacy leg (blocking commits on the default dispatcher), the baseline of the ratios; null when the run has none. */
  private final Variant legacy;
  private final List<StrainSample> samples;
  private final boolean partial;
  private final String command;
  private final MachineInfo machine;
  private final ZonedDateTime date;
  private final Map<String, Object> settings;
  private final Map<String, Object> dataset;

  /** {@code dataset}: the database the legs copied (empty if the run stopped before it was there). */
  StrainReport(List<Variant> legs, Variant legacy, List<StrainSample> samples, boolean partial, String command, MachineInfo machine,
      ZonedDateTime date, Map<String, Object> settings, Map<String, Object> dataset) {
    this.dataset = dataset;
    this.legs = legs;
    this.legacy = legacy;
    this.samples = samples;
    this.partial = partial;
    this.command = command;
    this.machine = machine;
    this.date = date;
    this.settings = settings;
  }

  /** The table and the goals: what the terminal shows. */
  String tables() {
    StringBuilder sb = new StringBuilder();
    if (partial) {
      sb.append("**PARTIAL: stopped after ").append(samples.size()).append(" legs; medians cover the legs that ran.**\n\n");
    }
    MarkdownTable t = MarkdownTable.of("leg", "commits/s median [range]", "x legacy (paired)", "p50 µs", "p99 µs", "probe p50 µs",
        "probe p99 µs", "write stall s (share)", "pending compaction max / end", "L0 files max / end", "CPU µs/commit", "conflicts");
    for (Variant v : legs) {
      List<StrainSample> mine = of(v);
      if (mine.isEmpty()) {
        continue;
      }
      Spread rate = spread(mine, s -> s.commits().commitsPerSecond());
      Spread ratio = legacy == null ? null : pairedRatio(v, legacy);
      t.row(v.label(), rate.format(),
          ratio == null ? "-" : Units.ratio(ratio.median()) + " [" + Units.ratio(ratio.min()) + "-" + Units.ratio(ratio.max()) + "]",
          Units.micros(median(mine, s -> s.commits().p50Nanos())),
          Units.micros(median(mine, s -> s.commits().p99Nanos())),
          Units.micros(median(mine, s -> s.probe().p50Nanos())),
          Units.micros(median(mine, s -> s.probe().p99Nanos())),
          String.format(Locale.ROOT, "%.1f (%s)", median(mine, s -> s.debt().stallMicros() / 1e6),
              Units.percent(median(mine, StrainSample::stallShare))),
          Units.bytes((long) median(mine, s -> s.debt().pendingBytesMax())) + " / "
              + Units.bytes((long) median(mine, s -> s.debt().pendingBytesEnd())),
          String.format(Locale.ROOT, "%.0f / %.0f", median(mine, s -> s.debt().level0FilesMax()),
              median(mine, s -> s.debt().level0FilesEnd())),
          Units.micros(median(mine, StrainSample::cpuNanosPerCommit)),
          Units.percent(median(mine, s -> s.commits().conflictRate())));
    }
    t.appendTo(sb);
    List<String> goals = goals();
    if (!goals.isEmpty()) {
      sb.append("\nGoals (pipeline at least ").append(Units.ratio(GOAL_RATIO_TO_LEGACY)).append(" legacy's commits/s; default-dispatcher probe p99 at most ")
          .append(Units.micros(GOAL_PROBE_P99_NANOS / 1000)).append(" ms while writes stall):\n");
      goals.forEach(g -> sb.append("- ").append(g).append('\n'));
    }
    return sb.toString();
  }

  /** The goal lines for every pipeline mode but legacy. */
  List<String> goals() {
    List<String> lines = new ArrayList<>();
    for (Variant v : legs) {
      if (v.kind() != Variant.Kind.PIPELINE || v == legacy || of(v).isEmpty()) {
        continue;
      }
      if (legacy != null && !of(legacy).isEmpty()) {
        Spread r = pairedRatio(v, legacy);
        lines.add(String.format(Locale.ROOT, "%s: %s legacy's commits/s (paired by round, range %s-%s): %s", v.label(), Units.ratio(r.median()),
            Units.ratio(r.min()), Units.ratio(r.max()), r.median() >= GOAL_RATIO_TO_LEGACY ? "met" : "**not met**"));
      }
      List<StrainSample> mine = of(v);
      double p99 = median(mine, s -> s.probe().p99Nanos());
      lines.add(String.format(Locale.ROOT, "%s: probe p99 %s ms (range %s-%s), writes stalled %s of the window: %s", v.label(),
          Units.micros(p99 / 1000), Units.micros(spread(mine, s -> s.probe().p99Nanos()).min() / 1000),
          Units.micros(spread(mine, s -> s.probe().p99Nanos()).max() / 1000), Units.percent(median(mine, StrainSample::stallShare)),
          p99 <= GOAL_PROBE_P99_NANOS ? "met" : "**not met**"));
    }
    return lines;
  }

  /** A README-ready section: the command, the machine and date, then {@link #tables()}. */
  String markdownSection() {
    return "```bash\n" + command + "\n```\n\nMeasured " + date.format(DateTimeFormatter.ISO_LOCAL_DATE) + " on " + machine.describe() + ". "
        + settings.get("description") + "\n\n" + tables();
  }

  String csv() {
    StringBuilder sb = new StringBuilder(String.join(",", CSV_COLUMNS)).append('\n');
    for (StrainSample s : samples) {
      List<Object> row = List.of(s.round() + 1, s.variant().spec(), '"' + s.variant().label() + '"', Units.csv(s.commits().commitsPerSecond()),
          s.commits().commits(), s.commits().conflicts(), Units.csv(s.commits().seconds()), Units.csv(s.commits().p50Nanos() / 1000),
          Units.csv(s.commits().p99Nanos() / 1000), Units.csv(s.cpuNanosPerCommit() / 1000), Units.csv(s.probe().p50Nanos() / 1000),
          Units.csv(s.probe().p99Nanos() / 1000), s.probe().probes(), s.debt().stallMicros() < 0 ? "" : Units.csv(s.debt().stallMicros() / 1000.0),
          Units.csv(s.stallShare()), s.debt().pendingBytesMax(), s.debt().pendingBytesEnd(), s.debt().level0FilesMax(), s.debt().level0FilesEnd());
      sb.append(String.join(",", row.stream().map(Objects::toString).toList())).append('\n');
    }
    return sb.toString();
  }

  String json() {
    Map<String, Object> m = RunHeader.json(command, date, machine, partial, settings);
    m.put("dataset", dataset);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (StrainSample s : samples) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("round", s.round() + 1);
      r.put("variant", s.variant().spec());
      r.put("label", s.variant().label());
      r.put("commitsPerSecond", s.commits().commitsPerSecond());
      r.put("commits", s.commits().commits());
      r.put("conflicts", s.commits().conflicts());
      r.put("seconds", s.commits().seconds());
      r.put("p50Micros", s.commits().p50Nanos() / 1000);
      r.put("p99Micros", s.commits().p99Nanos() / 1000);
      r.put("cpuMicrosPerCommit", s.cpuNanosPerCommit() / 1000);
      r.put("probeP50Micros", s.probe().p50Nanos() / 1000);
      r.put("probeP99Micros", s.probe().p99Nanos() / 1000);
      r.put("probes", s.probe().probes());
      r.put("stallMicros", s.debt().stallMicros());
      r.put("stallShare", s.stallShare());
      r.put("pendingCompactionBytesMax", s.debt().pendingBytesMax());
      r.put("pendingCompactionBytesEnd", s.debt().pendingBytesEnd());
      r.put("level0FilesMax", s.debt().level0FilesMax());
      r.put("level0FilesEnd", s.debt().level0FilesEnd());
      rows.add(r);
    }
    m.put("legs", rows);
    m.put("goals", goals());
    return Json.write(m);
  }

  private List<StrainSample> of(Variant v) {
    return samples.stream().filter(s -> s.variant().equals(v)).toList();
  }

  /** {@code v}'s commits/s over {@code base}'s, round by round (rounds where both ran). */
  private Spread pairedRatio(Variant v, Variant base) {
    List<Double> ratios = new ArrayList<>();
    for (StrainSample s : of(v)) {
      for (StrainSample b : of(base)) {
        if (b.round() == s.round()) {
          ratios.add(s.commits().commitsPerSecond() / b.commits().commitsPerSecond());
        }
      }
    }
    return Spread.of(ratios);
  }

  private static Spread spread(List<StrainSample> samples, ToDoubleFunction<StrainSample> metric) {
    return Spread.of(samples.stream().map(metric::applyAsDouble).filter(d -> !Double.isNaN(d)).toList());
  }

  private static double median(List<StrainSample> samples, ToDoubleFunction<StrainSample> metric) {
    return spread(samples, metric).median();
  }
}
