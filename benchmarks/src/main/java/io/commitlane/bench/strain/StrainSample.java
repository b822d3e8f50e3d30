package io.commitlane.bench.strain;

import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.Variant;

/**
 * One leg of {@code strain}: one variant committing to a fresh copy of the dataset for one window.
 *
 * @param round the round (0-based) the leg ran in
 * @param commits commits/s, latency (submit to completion) and conflicts over the window
 * @param cpuNanosPerCommit process CPU over the window per commit (RocksDB's flushes and compactions included)
 * @param probe the default-dispatcher probe over the same window
 * @param debt write stalls and compaction debt over the same window
 */
record StrainSample(int round, Variant variant, Measurement commits, double cpuNanosPerCommit, ProbeSample probe, CompactionDebt.Window debt) {
  /** The share of the window writes were stalled; NaN without RocksDB statistics. */
  double stallShare() {
    return debt.stallMicros() < 0 ? Double.NaN : debt.stallMicros() / 1e6 / commits.seconds();
  }
}
