package io.commitlane.bench.harness;

/**
 * One timed run of one variant under one load.
 *
 * @param commits successful commits in the measured window
 * @param conflicts commits refused by validation in the window
 * @param seconds the window's length
 * @param p50Nanos median commit latency (successful or not)
 * @param p99Nanos 99th percentile commit latency
 */
public record Measurement(long commits, long conflicts, double seconds, double p50Nanos, double p99Nanos) {
  public double commitsPerSecond() {
    return commits / seconds;
  }

  public double conflictRate() {
    long attempts = commits + conflicts;
    return attempts == 0 ? 0 : (double) conflicts / attempts;
  }
}
