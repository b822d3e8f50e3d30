package io.commitlane.bench.report;

import io.commitlane.bench.compare.CompareResults;
import io.commitlane.bench.compare.CompareSample;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.pipeline.PipelineReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.style.Styler;

/**
 * The commands' charts (XChart, headless), each written as PNG and SVG: {@code compare}'s bars of
 * median commits/s and of median p99 latency per variant, one series per load, on log axes
 * (loads differ by orders of magnitude); and {@link #ratios ratio bars} on a linear axis, where
 * 1.0 is the peer.
 */
public final class ChartWriter {
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 560;

  static {
    System.setProperty("java.awt.headless", "true"); // charts are files; there is no display
    // ImageIO's file cache registers a shutdown hook, which fails while Ctrl-C's partial report is being written.
    javax.imageio.ImageIO.setUseCache(false);
  }

  private ChartWriter() {}

  /** Writes {@code commits-per-second.png/.svg} and {@code p99-latency.png/.svg} into {@code dir}; returns the files. */
  public static List<Path> write(CompareResults results, Path dir) throws IOException {
    List<Path> files = new ArrayList<>();
    if (results.measuredLoads().isEmpty()) {
      return files; // stopped before the first measurement: nothing to draw
    }
    String suffix = results.partial() ? " (partial)" : "";
    files.addAll(save(chart(results, "Commits/s, median of runs (log scale)" + suffix, "commits/s", c -> c.commits().commitsPerSecond(), true),
        dir.resolve("commits-per-second")));
    files.addAll(save(chart(results, "p99 commit latency, median of runs (log scale)" + suffix, "p99 µs", c -> c.commits().p99Nanos() / 1000, true),
        dir.resolve("p99-latency")));
    return files;
  }

  /**
   * Bars of ratios to a peer (1.0 = the peer), one series per metric, one group per category, on
   * a linear axis from 0: a ratio reads better there than two bars on a log axis. A NaN shows no
   * bar. Writes {@code base.png} and {@code base.svg}.
   */
  public static List<Path> ratios(String title, String xTitle, List<String> categories, Map<String, List<Double>> series, Path base) throws IOException {
    CategoryChart chart = chart(title, xTitle, "x the peer (1.0 = the same)", false);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisDecimalPattern("0.00");
    series.forEach((name, values) -> chart.addSeries(name, categories, values));
    return save(chart, base);
  }

  private static CategoryChart chart(String title, String xTitle, String yTitle, boolean log) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    Styler styler = chart.getStyler();
    styler.setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setXAxisLabelRotation(20);
    chart.getStyler().setYAxisLogarithmic(log);
    chart.getStyler().setToolTipsEnabled(false);
    chart.getStyler().setYAxisDecimalPattern("#,###.#");
    return chart;
  }

  private static CategoryChart chart(CompareResults results, String title, String yTitle, ToDoubleFunction<CompareSample> metric, boolean log) {
    CategoryChart chart = chart(title, "variant", yTitle, log);
    List<String> labels = results.variants.stream().map(Variant::label).toList();
    double smallest = Double.MAX_VALUE;
    for (Load load : results.measuredLoads()) {
      List<Double> values = new ArrayList<>();
      for (Variant v : results.variants) {
        double m = results.spread(load, v, metric).median();
        // a bar must have a value: an unmeasured variant (a stopped run) shows none; a log axis cannot show 0
        values.add(Double.isNaN(m) || m <= 0 ? (log ? Double.NaN : 0.0) : m);
        if (m > 0) {
          smallest = Math.min(smallest, m);
        }
      }
      chart.addSeries(PipelineReport.label(load), labels, values);
    }
    if (log && smallest < Double.MAX_VALUE) {
      chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(smallest)))); // bars start at the axis; a log axis has no 0
    }
    return chart;
  }

  private static List<Path> save(CategoryChart chart, Path base) throws IOException {
    BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    return List.of(Path.of(base + ".png"), Path.of(base + ".svg"));
  }
}
