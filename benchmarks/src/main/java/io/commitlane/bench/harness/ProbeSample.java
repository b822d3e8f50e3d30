package io.commitlane.bench.harness;

/**
 * How long trivial tasks waited to run on the default dispatcher in one measured window.
 *
 * @param probes tasks timed in the window
 * @param burst the commits running meanwhile; null when nothing committed
 */
public record ProbeSample(double p50Nanos, double p99Nanos, long probes, PipelineSample burst) {}
