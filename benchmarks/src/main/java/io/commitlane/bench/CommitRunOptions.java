package io.commitlane.bench;

import picocli.CommandLine.Mixin;

/**
 * The flags of a command that commits to fresh databases: what each commit writes
 * ({@link WorkloadOptions}), the commitlane settings it runs with ({@link CommitlaneOptions}) and
 * where the databases go ({@link DirOption}).
 */
final class CommitRunOptions {
  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Mixin
  CommitlaneOptions commitlane = new CommitlaneOptions();

  @Mixin
  DirOption dir = new DirOption();
}
