package io.commitlane.bench.cli;

import picocli.CommandLine.Option;

/** {@code --value-size} and {@code --key-space}: what every commit writes (random 8-byte keys from the space, one value size). */
public final class WorkloadOptions {
  @Option(names = "--value-size", description = "Value bytes. Default: ${DEFAULT-VALUE}")
  public int valueSize = 100;

  @Option(names = "--key-space", description = "Distinct keys to draw from. Default: ${DEFAULT-VALUE}")
  public int keySpace = 1_000_000;

  public void validate() {
    Checks.range("--value-size", valueSize, 1, 16 << 20);
    Checks.range("--key-space", keySpace, 1, Integer.MAX_VALUE);
  }
}
