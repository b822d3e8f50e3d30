/**
 * {@code ./commitlane pipeline}: {@link io.commitlane.bench.pipeline.PipelineBench}; every row it can measure is a
 * {@link io.commitlane.bench.pipeline.Trial} from {@link io.commitlane.bench.pipeline.PipelineTrials}, reported by
 * {@link io.commitlane.bench.pipeline.PipelineReport}.
 */
package io.commitlane.bench.pipeline;
