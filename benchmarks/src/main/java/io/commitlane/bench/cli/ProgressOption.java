package io.commitlane.bench.cli;

import picocli.CommandLine.Option;

/** {@code --progress}: the one-line status of a long run, also when stderr is not a terminal. */
public final class ProgressOption {
  @Option(names = "--progress", description = "Show the one-line status on stderr even when it is not a terminal.")
  public boolean progress;
}
