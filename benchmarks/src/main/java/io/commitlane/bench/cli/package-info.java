/**
 * Flags and their checks shared by the subcommands: {@link io.commitlane.bench.cli.Checks} (usage errors, exit 2),
 * the option mixins ({@link io.commitlane.bench.cli.TimingOptions}, {@link io.commitlane.bench.cli.WorkloadOptions},
 * {@link io.commitlane.bench.cli.CommitRunOptions}, ...), and {@link io.commitlane.bench.cli.PipelineOverrides}, the one
 * place where command-line knobs become {@code commitlane { ... }} settings.
 */
package io.commitlane.bench.cli;
