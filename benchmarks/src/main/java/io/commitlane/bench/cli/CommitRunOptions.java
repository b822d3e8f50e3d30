package io.commitlane.bench.cli;

import picocli.CommandLine.Mixin;

/**
 * The flags of a command that commits to fresh databases: what each commit writes
 * ({@link WorkloadOptions}), the commitlane settings it runs with ({@link CommitlaneOptions}) and
 * where the databases go ({@link DirOption}).
 */
public final class CommitRunOptions {
  @Mixin
  public WorkloadOptions workload = new WorkloadOptions();

  @Mixin
  public CommitlaneOptions commitlane = new CommitlaneOptions();

  @Mixin
  public DirOption dir = new DirOption();
}
