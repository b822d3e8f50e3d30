package io.commitlane.bench.compare;

import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.pipeline.PipelineReport;
import java.util.Locale;

/** What the progress line says during a comparison: which cell runs, how long so far, about how long to go. */
final class CellProgress {
  /** Opening and closing a database and starting its workers, on top of the timed parts of a cell. */
  private static final double CELL_OVERHEAD_SECONDS = 0.3;

  private final int planned;
  private final double plannedCellSeconds;
  private final long startNanos = System.nanoTime();
  private volatile int done;
  private volatile String current = "starting";

  CellProgress(int planned, TimingOptions timing) {
    this.planned = planned;
    this.plannedCellSeconds = estimateSeconds(timing);
  }

  static double estimateSeconds(TimingOptions timing) {
    return timing.warmup + timing.seconds + CELL_OVERHEAD_SECONDS;
  }

  void started(Load load, Variant variant, int round) {
    current = PipelineReport.label(load) + " · " + variant.label() + " · run " + (round + 1);
  }

  void finished() {
    done++;
  }

  String status() {
    double elapsed = (System.nanoTime() - startNanos) / 1e9;
    int d = done;
    double perCell = d == 0 ? plannedCellSeconds : elapsed / d;
    return String.format(Locale.ROOT, "compare %d/%d · %s · %s elapsed · about %s left · Ctrl-C stops and reports", Math.min(d + 1, planned), planned,
        current, ProgressLine.clock(elapsed), ProgressLine.clock(perCell * (planned - d)));
  }
}
