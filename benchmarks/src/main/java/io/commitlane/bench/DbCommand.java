package io.commitlane.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Commands on a database directory. */
@Command(name = "db", mixinStandardHelpOptions = true,
    description = "Commands on a database directory: stats (health and RocksDB's numbers).",
    subcommands = {DbStatsCommand.class})
final class DbCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  /** No subcommand: a usage error that lists them. */
  @Override
  public Integer call() {
    throw new Checks.UsageException("name a subcommand: " + String.join(", ", spec.subcommands().keySet()));
  }
}
