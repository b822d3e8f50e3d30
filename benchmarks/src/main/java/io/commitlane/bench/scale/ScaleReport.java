package io.commitlane.bench.scale;

import io.commitlane.bench.dataset.DatasetShape;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.report.ChartWriter;
import io.commitlane.bench.report.Json;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.RunHeader;
import io.commitlane.bench.report.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * {@code scale}'s output: per dataset, the pipeline and the raw peer side by side (median [range]
 * over the rounds, ratios paired by round), the memory each database held, a chart of the
 * ratios, and every leg as CSV and JSON.
 */
final class ScaleReport {
  private static final List<String> CSV_COLUMNS = List.of("keys", "min_value", "max_value", "round", "variant", "label", "commits_per_second",
      "commits", "conflicts", "seconds", "p50_micros", "p99_micros", "cpu_micros_per_commit", "native_growth_bytes", "live_heap_growth_bytes", "memtable_bytes",
      "block_cache_bytes", "index_filter_bytes");

  private final List<DatasetShape> cells;
  private final Variant pipeline;
  private final Variant peer;
  private final List<ScaleSample> samples;
  private final boolean partial;
  private final String command;
  private final MachineInfo machine;
  private final ZonedDateTime date;
  private final Map<String, Object> settings;

  ScaleReport(List<DatasetShape> cells, Variant pipeline, Variant peer, List<ScaleSample> samples, boolean partial, String command,
      MachineInfo machine, ZonedDateTime date, Map<String, Object> settings) {
    this.cells = cells;
    this.pipeline = pipeline;
    this.peer = peer;
    this.samples = samples;
    this.partial = partial;
    this.command = command;
    this.machine = machine;
    this.date = date;
    this.settings = settings;
  }

  String tables() {
    StringBuilder sb = new StringBuilder();
    if (partial) {
      sb.append("**PARTIAL: stopped after ").append(samples.size()).append(" legs; medians cover the legs that ran.**\n\n");
    }
    MarkdownTable t = MarkdownTable.of("data", "committer", "commits/s median [range]", "x raw (paired)", "CPU µs/commit",
        "CPU x raw (paired)", "memory (native + live heap)", "memtables", "block cache", "index + filters");
    for (DatasetShape cell : cells) {
      for (Variant v : List.of(pipeline, peer)) {
        List<ScaleSample> mine = of(cell, v);
        if (mine.isEmpty()) {
          continue;
        }
        t.row(cell.label(), v.label(),
            spread(mine, s -> s.commits().commitsPerSecond()).format(),
            v == peer ? "1.00x" : Units.ratio(paired(cell, s -> s.commits().commitsPerSecond()).median()),
            Units.micros(median(mine, ScaleSample::cpuNanosPerCommit)),
            v == peer ? "1.00x" : Units.ratio(paired(cell, ScaleSample::cpuNanosPerCommit).median()),
            Units.mib(median(mine, s -> s.memory().total())) + " ("
                + Units.mib(median(mine, s -> s.memory().nativeGrowth())) + " + "
                + Units.mib(median(mine, s -> s.memory().liveHeapGrowth())) + ")",
            Units.mib(median(mine, s -> s.memory().rocks().memtableBytes())),
            Units.mib(median(mine, s -> s.memory().rocks().blockCacheBytes())),
            Units.mib(median(mine, s -> s.memory().rocks().tableReadersBytes())));
      }
    }
    return t.appendTo(sb).toString();
  }

  String markdownSection() {
    return "```bash\n" + command + "\n```\n\nMeasured " + date.format(DateTimeFormatter.ISO_LOCAL_DATE) + " on " + machine.describe() + ". "
        + settings.get("description") + "\n\n" + tables();
  }

  /** The ratio chart: commits/s and CPU per commit of the pipeline over the raw peer's, per dataset (paired by round, median). */
  List<Path> chart(Path dir) throws IOException {
    List<DatasetShape> measured = cells.stream().filter(c -> !of(c, pipeline).isEmpty() && !of(c, peer).isEmpty()).toList();
    if (measured.isEmpty()) {
      return List.of();
    }
    Map<String, List<Double>> series = new LinkedHashMap<>();
    series.put("commits/s (higher is better)", measured.stream().map(c -> paired(c, s -> s.commits().commitsPerSecond()).median()).toList());
    series.put("CPU per commit (lower is better)", measured.stream().map(c -> paired(c, ScaleSample::cpuNanosPerCommit).median()).toList());
    series.put("memory (lower is better)", measured.stream().map(c -> median(of(c, pipeline), s -> s.memory().total())
        / median(of(c, peer), s -> s.memory().total())).toList());
    return ChartWriter.ratios(pipeline.label() + " against " + peer.label() + " (1.0 = the peer)" + (partial ? " (partial)" : ""), "data",
        measured.stream().map(DatasetShape::label).toList(), series, dir.resolve("scale-ratios"));
  }

  String csv() {
    StringBuilder sb = new StringBuilder(String.join(",", CSV_COLUMNS)).append('\n');
    for (ScaleSample s : samples) {
      List<Object> row = List.of(s.data().keys(), s.data().minValue(), s.data().maxValue(), s.round() + 1, s.variant().spec(),
          '"' + s.variant().label() + '"', Units.csv(s.commits().commitsPerSecond()), s.commits().commits(), s.commits().conflicts(),
          Units.csv(s.commits().seconds()), Units.csv(s.commits().p50Nanos() / 1000), Units.csv(s.commits().p99Nanos() / 1000), Units.csv(s.cpuNanosPerCommit() / 1000),
          s.memory().nativeGrowth(), s.memory().liveHeapGrowth(), s.memory().rocks().memtableBytes(), s.memory().rocks().blockCacheBytes(),
          s.memory().rocks().tableReadersBytes());
      sb.append(String.join(",", row.stream().map(Objects::toString).toList())).append('\n');
    }
    return sb.toString();
  }

  String json() {
    Map<String, Object> m = RunHeader.json(command, date, machine, partial, settings);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ScaleSample s : samples) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("keys", s.data().keys());
      r.put("minValue", s.data().minValue());
      r.put("maxValue", s.data().maxValue());
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
      r.put("nativeGrowthBytes", s.memory().nativeGrowth());
      r.put("liveHeapGrowthBytes", s.memory().liveHeapGrowth());
      r.put("memtableBytes", s.memory().rocks().memtableBytes());
      r.put("blockCacheBytes", s.memory().rocks().blockCacheBytes());
      r.put("indexFilterBytes", s.memory().rocks().tableReadersBytes());
      rows.add(r);
    }
    m.put("legs", rows);
    return Json.write(m);
  }

  private List<ScaleSample> of(DatasetShape cell, Variant v) {
    return samples.stream().filter(s -> s.data().equals(cell) && s.variant().equals(v)).toList();
  }

  /** The pipeline's metric over the peer's, round by round, on one dataset. */
  private Spread paired(DatasetShape cell, ToDoubleFunction<ScaleSample> metric) {
    List<Double> ratios = new ArrayList<>();
    for (ScaleSample s : of(cell, pipeline)) {
      for (ScaleSample p : of(cell, peer)) {
        if (p.round() == s.round()) {
          ratios.add(metric.applyAsDouble(s) / metric.applyAsDouble(p));
        }
      }
    }
    return Spread.of(ratios);
  }

  private static Spread spread(List<ScaleSample> samples, ToDoubleFunction<ScaleSample> metric) {
    return Spread.of(samples.stream().map(metric::applyAsDouble).filter(d -> !Double.isNaN(d)).toList());
  }

  private static double median(List<ScaleSample> samples, ToDoubleFunction<ScaleSample> metric) {
    return spread(samples, metric).median();
  }
}
