package io.commitlane.bench.contention;

import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.ProgressLine;
import java.util.Locale;

/** The progress line of one measured {@code bench} window: warm-up or measuring, and how far along. */
final class BenchWindowStatus {
  private final long start = System.nanoTime();
  private final TimingOptions timing;

  BenchWindowStatus(TimingOptions timing) {
    this.timing = timing;
  }

  String status() {
    double t = (System.nanoTime() - start) / 1e9;
    String phase = t < timing.warmup ? "warm-up" : "measuring";
    return String.format(Locale.ROOT, "bench: %s · %s of %s · Ctrl-C stops and reports", phase, ProgressLine.clock(t),
        ProgressLine.clock(timing.warmup + timing.seconds));
  }
}
