package io.commitlane.bench.cli;

import picocli.CommandLine.Option;

/**
 * {@code --runs}, {@code --warmup}, {@code --seconds}: how each command repeats and times its
 * measurements. A command picks its own defaults by constructing the mixin with them (picocli
 * keeps an initialized mixin field and shows the initial values as defaults).
 */
public final class TimingOptions {
  @Option(names = "--runs", description = "Rounds; each runs every variant once, in rotated order. Default: ${DEFAULT-VALUE}")
  public int runs;

  @Option(names = "--warmup", description = "Warm-up seconds per measurement (not counted). Default: ${DEFAULT-VALUE}")
  public double warmup;

  @Option(names = "--seconds", description = "Measured seconds per measurement. Default: ${DEFAULT-VALUE}")
  public double seconds;

  public TimingOptions(int runs, double warmup, double seconds) {
    this.runs = runs;
    this.warmup = warmup;
    this.seconds = seconds;
  }

  public void validate() {
    Checks.range("--runs", runs, 1, 1000);
    Checks.nonNegative("--warmup", warmup);
    Checks.positive("--seconds", seconds);
  }
}
