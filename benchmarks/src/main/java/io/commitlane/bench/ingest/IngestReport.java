package io.commitlane.bench.ingest;

import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The ingestion table: records/s of every row, median [range], against the raw peer; whether each
 * sink row met its target against raw batched writes; and, with matrix rows, the sink's records/s
 * across parallelism x queue capacity.
 */
final class IngestReport {
  /** The ingest sink's goal: this fraction of raw batched writes' records/s. */
  private static final double TARGET = 0.8;

  private final List<Integer> matrixParallelism;
  private final List<String> matrixCapacity;
  private final List<String> matrixRows;

  /** {@code matrixRows}: the matrix rows that ran, none without matrix rows. */
  IngestReport(List<Integer> matrixParallelism, List<String> matrixCapacity, List<String> matrixRows) {
    this.matrixParallelism = matrixParallelism;
    this.matrixCapacity = matrixCapacity;
    this.matrixRows = matrixRows;
  }

  /** The line a measurement prints. */
  static String line(int run, String row, IngestSample s) {
    return String.format(Locale.ROOT,
        "  run %d  %-28s %10s records/s  %6s µs CPU/record  (%,d records in %.2f s, %,d transactions, %,d conflicts)", run, row,
        Units.count(s.perSecond()), Units.micros(s.cpuNanosPerRecord()), s.records(), s.nanos() / 1e9, s.transactions(), s.conflicts());
  }

  String table(Map<String, List<IngestSample>> samples) {
    double raw = median(samples.get(IngestRawRow.NAME));
    StringBuilder sb = new StringBuilder();
    MarkdownTable rows = MarkdownTable.of("row", "records/s median [range]", "x raw", "transactions (median)",
        "conflicts (median)", "process CPU µs/record (median)");
    for (var e : samples.entrySet()) {
      Spread rate = Spread.of(e.getValue().stream().map(IngestSample::perSecond).toList());
      double txns = Spread.of(e.getValue().stream().map(s -> (double) s.transactions()).toList()).median();
      rows.row(e.getKey(), rate.format(), Units.ratio(rate.median() / raw),
          txns > 0 ? Units.count(txns) : "-",
          Units.count(Spread.of(e.getValue().stream().map(x -> (double) x.conflicts()).toList()).median()),
          Units.micros(Spread.of(e.getValue().stream().map(IngestSample::cpuNanosPerRecord).toList()).median()));
    }
    rows.appendTo(sb);
    String sep = "\n";
    List<String> sinkRows = new ArrayList<>(List.of(IngestSinkRow.NAME, IngestSinkRow.ORDERED));
    sinkRows.addAll(matrixRows);
    for (String row : sinkRows) {
      double sink = median(samples.get(row));
      if (!Double.isNaN(sink) && !Double.isNaN(raw)) {
        sb.append(sep);
        sep = "";
        sb.append(String.format(Locale.ROOT, "target: %s >= %.2fx raw batched writes: %s (%s)%n", row, TARGET,
            sink / raw >= TARGET ? "met" : "NOT met", Units.ratio(sink / raw)));
      }
    }
    if (!matrixRows.isEmpty()) {
      List<String> header = new ArrayList<>(List.of("matrix: records/s x parallelism 1 (same capacity)"));
      matrixParallelism.forEach(p -> header.add("p" + p));
      header.add("x default capacity (same parallelism)");
      MarkdownTable matrix = MarkdownTable.of(header);
      for (String capacity : matrixCapacity) {
        Integer cap = IngestBench.capacity(capacity);
        List<String> cells = new ArrayList<>(List.of("q" + capacity));
        StringBuilder vsDefault = new StringBuilder();
        double p1 = median(samples.get(IngestSinkRow.matrixName(matrixParallelism.get(0), cap)));
        for (int p : matrixParallelism) {
          double m = median(samples.get(IngestSinkRow.matrixName(p, cap)));
          cells.add(Units.ratio(m / p1));
          double def = median(samples.get(IngestSinkRow.matrixName(p, null)));
          vsDefault.append(vsDefault.length() == 0 ? "" : ", ").append('p').append(p).append(' ').append(Units.ratio(m / def));
        }
        cells.add(vsDefault.toString());
        matrix.row(cells);
      }
      matrix.appendTo(sb.append('\n'));
    }
    return sb.toString();
  }

  private static double median(List<IngestSample> samples) {
    return samples == null ? Double.NaN : Spread.of(samples.stream().map(IngestSample::perSecond).toList()).median();
  }
}
