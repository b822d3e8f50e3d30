package io.commitlane.bench.jmh;

import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * JMH micro-benchmarks of the hot pieces, with JMH's own arguments: version-table lock, validate
 * and stamp; transaction-log frame encoding and appends; the commit queue's admission and drain.
 */
@Command(name = "jmh", mixinStandardHelpOptions = true,
    description = {"JMH micro-benchmarks of the hot pieces (version table, log framing, commit-queue hand-off). "
        + "Arguments go to JMH, e.g.: ./commitlane jmh -f 1 -wi 2 -i 3 VersionTable",
        "Benchmarks: VersionTableBench (io.commitlane.storage), FrameEncodingBench and LogAppendBench (io.commitlane.txlog), "
            + "CommitQueueBench (io.commitlane.actors.internal.pipeline). -l lists them, -h shows JMH's options."})
public final class JmhCommand implements Callable<Integer> {
  @Parameters(arity = "0..*", paramLabel = "JMH-ARGS", description = "Passed to JMH (regexp of benchmarks, -f forks, -wi/-i iterations, -t threads, -p params, ...)")
  List<String> args = List.of();

  @Override
  public Integer call() throws RunnerException {
    CommandLineOptions options;
    try {
      options = new CommandLineOptions(args.toArray(String[]::new));
    } catch (CommandLineOptionException e) {
      throw Checks.usage("bad JMH argument: " + e.getMessage());
    }
    if (options.shouldHelp()) {
      try {
        options.showHelp();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return 0;
    }
    Runner runner = new Runner(options);
    if (options.shouldList()) {
      runner.list();
      return 0;
    }
    return runner.run().isEmpty() ? Main.FAILED : 0;
  }
}
