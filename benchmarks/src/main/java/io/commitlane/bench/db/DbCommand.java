package io.commitlane.bench.db;

import io.commitlane.bench.cli.Checks;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Commands on a database directory (not open in another process), without an actor system: {@code ./commitlane db stats|compact DIR ...}. */
@Command(name = "db", mixinStandardHelpOptions = true,
    description = "Commands on a database directory (not open in another process): stats (health and RocksDB's numbers),"
        + " compact. Exit code 0: done, 1: failed, 2: bad arguments.",
    subcommands = {DbStatsCommand.class, DbCompactCommand.class})
public final class DbCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  /** No subcommand: a usage error that lists them. */
  @Override
  public Integer call() {
    throw new Checks.UsageException("name a subcommand: " + String.join(", ", spec.subcommands().keySet()));
  }
}
