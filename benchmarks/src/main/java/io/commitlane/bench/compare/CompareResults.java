package io.commitlane.bench.compare;

import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.harness.Variant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What a {@code compare} run measured so far: samples by load and variant, how many cells were
 * planned and done, and whether it stopped early (then every table and file says "partial").
 */
public final class CompareResults {
  final List<Load> loads;
  public final List<Variant> variants;
  final int cellsPlanned;
  private final Map<Load, Map<Variant, List<CompareSample>>> samples = new LinkedHashMap<>();
  private int cellsDone;
  private boolean partial;

  CompareResults(List<Load> loads, List<Variant> variants, int runs) {
    this.loads = List.copyOf(loads);
    this.variants = List.copyOf(variants);
    this.cellsPlanned = loads.size() * variants.size() * runs;
    for (Load l : loads) {
      Map<Variant, List<CompareSample>> byVariant = new LinkedHashMap<>();
      variants.forEach(v -> byVariant.put(v, new ArrayList<>()));
      samples.put(l, byVariant);
    }
  }

  synchronized void add(Load load, Variant variant, CompareSample sample) {
    samples.get(load).get(variant).add(sample);
    cellsDone++;
  }

  synchronized void markPartial() {
    partial = true;
  }

  public synchronized boolean partial() {
    return partial;
  }

  synchronized int cellsDone() {
    return cellsDone;
  }

  synchronized List<CompareSample> samples(Load load, Variant variant) {
    return List.copyOf(samples.get(load).get(variant));
  }

  /** Loads with at least one sample, in the order asked. */
  public synchronized List<Load> measuredLoads() {
    return loads.stream().filter(l -> samples.get(l).values().stream().anyMatch(s -> !s.isEmpty())).toList();
  }

  public Spread spread(Load load, Variant variant, ToDoubleFunction<CompareSample> f) {
    return Spread.of(samples(load, variant).stream().map(s -> f.applyAsDouble(s)).filter(d -> !Double.isNaN(d)).toList());
  }

  /** The first variant of this kind, if it was run: the reference for ratios. */
  Variant firstOf(Variant.Kind kind) {
    return variants.stream().filter(v -> v.kind() == kind).findFirst().orElse(null);
  }

  /** Commits/s of {@code variant} over {@code reference}, paired by round (both measured in the same round). */
  Spread pairedRatio(Load load, Variant variant, Variant reference) {
    Map<Integer, Double> ref = new LinkedHashMap<>();
    samples(load, reference).forEach(s -> ref.put(s.round(), s.commits().commitsPerSecond()));
    List<Double> ratios = new ArrayList<>();
    for (CompareSample s : samples(load, variant)) {
      Double r = ref.get(s.round());
      if (r != null && r > 0) {
        ratios.add(s.commits().commitsPerSecond() / r);
      }
    }
    return Spread.of(ratios);
  }
}
