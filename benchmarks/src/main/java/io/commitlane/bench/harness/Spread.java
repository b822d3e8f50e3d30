package io.commitlane.bench.harness;

import io.commitlane.bench.report.Units;
import java.util.Arrays;
import java.util.List;

/** The median and range of repeated measurements: what the README reports on a noisy machine. */
public record Spread(double median, double min, double max) {
  public static Spread of(List<Double> values) {
    if (values.isEmpty()) {
      return new Spread(Double.NaN, Double.NaN, Double.NaN);
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    return new Spread(median, v[0], v[v.length - 1]);
  }

  /** "153k [149k-158k]" */
  public String format() {
    return Units.count(median) + " [" + Units.count(min) + "-" + Units.count(max) + "]";
  }
}
