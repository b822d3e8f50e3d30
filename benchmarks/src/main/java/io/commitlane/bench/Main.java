package io.commitlane.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command-line entry point ({@code ./commitlane}). With no subcommand it runs a short
 * side-by-side comparison on an embedded RocksDB in a temporary directory.
 */
@Command(name = "commitlane", mixinStandardHelpOptions = true, version = "commitlane 0.1.0",
    description = "Commit RocksDB transactions and measure them against raw rocksdbjni in the same run.",
    subcommands = {StorageBench.class, MemoryBench.class, PipelineBench.class, TxlogBench.class, InspectCommand.class, IngestBench.class, ClusterBench.class})
public final class Main implements Callable<Integer> {
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code: 0 ok, 1 failed, 2 bad usage. */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof Checks.UsageException) {
        commandLine.getErr().println("commitlane: " + e.getMessage());
        commandLine.usage(commandLine.getErr());
        return 2;
      }
      commandLine.getErr().println("commitlane: failed: " + e);
      e.printStackTrace(commandLine.getErr());
      return 1;
    });
    return cli.execute(args);
  }

  /**
   * The default job (about a minute on two cores): a quick storage comparison against raw
   * rocksdbjni, then the actor pipeline against the raw peer, each on a fresh embedded database
   * in a temporary directory.
   */
  @Override
  public Integer call() {
    int storage = new CommandLine(new StorageBench()).execute("--runs", "1", "--warmup", "0.5", "--seconds", "1",
        "--threads", "1,2", "--keys", "1,64");
    if (storage != 0) {
      return storage;
    }
    return new CommandLine(new PipelineBench()).execute("--runs", "1", "--warmup", "0.5", "--seconds", "1",
        "--loads", "8x1", "--scenarios", "throughput,latency", "--latency-keys", "1");
  }
}
