package io.commitlane.bench.harness;

/**
 * One measurement of a commit row: its commits, and for commitlane's asynchronous rows what the
 * pipeline itself reported for the same window ({@code CommitlaneDatabase.stats()}).
 *
 * @param executorsStarted commit executors started since the database opened; -1 for rows without a pipeline
 * @param queueWaitP50Nanos median wait from admission to an executor taking the commit; NaN when nothing queued
 */
public record PipelineSample(Measurement commits, int executorsStarted, double queueWaitP50Nanos) {
  public static PipelineSample withoutPipeline(Measurement commits) {
    return new PipelineSample(commits, -1, Double.NaN);
  }
}
