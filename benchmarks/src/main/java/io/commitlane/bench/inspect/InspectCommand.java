package io.commitlane.bench.inspect;

import io.commitlane.txlog.LogInspector;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Validate transaction-log directories and print their records. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = "Validate a transaction log (<db>/txlog/<name>), or every log of a database (<db>), without changing"
        + " anything: print records, corrupt frames, missing, truncated and unreadable segments, and entries that are"
        + " not the log's. Exit code 0: clean, 1: damage or foreign entries found, 2: bad arguments or not a log.")
public final class InspectCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "A log directory (data/orders/txlog/main) or a database directory (data/orders)")
  Path directory;

  @Override
  public Integer call() {
    return LogInspector.run(new String[] {directory.toString()}, System.out, System.err);
  }
}
