package io.commitlane.bench;

import io.commitlane.txlog.LogInspector;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Validate a transaction-log directory and print its records. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = "Validate a transaction-log directory (<db>/txlog/<name>) and print its records and corrupt frames."
        + " Exit code 0: clean, 1: corruption found, 2: bad arguments.")
final class InspectCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "The log directory, for example data/orders/txlog/main")
  Path directory;

  @Override
  public Integer call() {
    return LogInspector.run(new String[] {directory.toString()}, System.out, System.err);
  }
}
