package io.commitlane.bench.compare;

import io.commitlane.bench.harness.Measurement;

/**
 * One measurement of one variant in a {@code compare} run.
 *
 * @param round the round (0-based) it was measured in; ratios pair samples of the same round
 * @param cpuNanosPerCommit process CPU time in the window per successful commit; NaN when unknown
 * @param executors commit executors the pipeline started; -1 for variants without a pipeline
 */
public record CompareSample(int round, Measurement commits, double cpuNanosPerCommit, int executors) {}
