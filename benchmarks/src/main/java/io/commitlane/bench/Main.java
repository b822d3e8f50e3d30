package io.commitlane.bench;

import io.commitlane.bench.backup.BackupBench;
import io.commitlane.bench.backup.BackupCommand;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cluster.ClusterBench;
import io.commitlane.bench.compare.CompareCommand;
import io.commitlane.bench.contention.BenchCommand;
import io.commitlane.bench.db.DbCommand;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.ingest.IngestBench;
import io.commitlane.bench.inspect.InspectCommand;
import io.commitlane.bench.jmh.JmhCommand;
import io.commitlane.bench.logappend.LogAppendBench;
import io.commitlane.bench.memory.MemoryBench;
import io.commitlane.bench.persistence.PersistenceBench;
import io.commitlane.bench.pipeline.PipelineBench;
import io.commitlane.bench.read.ReadBench;
import io.commitlane.bench.recovery.RecoveryCommand;
import io.commitlane.bench.replica.ReplicaCommand;
import io.commitlane.bench.replication.ReplicationBench;
import io.commitlane.bench.scale.ScaleCommand;
import io.commitlane.bench.storage.StorageBench;
import io.commitlane.bench.strain.StrainCommand;
import io.commitlane.bench.txlog.TxlogBench;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The command-line entry point ({@code ./commitlane}). With no subcommand it runs the default
 * {@code compare}: commitlane against raw rocksdbjni and LMDB, about two minutes on two cores.
 */
@Command(name = "commitlane", mixinStandardHelpOptions = true, version = "commitlane 0.1.0",
    description = "Commit RocksDB transactions and measure them against raw rocksdbjni and LMDB in the same run."
        + " With no command: the default comparison (compare, about 2 minutes).",
    subcommands = {CompareCommand.class, BenchCommand.class, InspectCommand.class, JmhCommand.class, StorageBench.class, PipelineBench.class,
        TxlogBench.class, IngestBench.class, MemoryBench.class, LogAppendBench.class,
        ClusterBench.class, RecoveryCommand.class, ReadBench.class, DbCommand.class, BackupCommand.class, BackupBench.class, StrainCommand.class, ScaleCommand.class,
        ReplicationBench.class, ReplicaCommand.class, PersistenceBench.class})
public final class Main implements Callable<Integer> {
  /** Exit codes: 0 ok, 1 failed, 2 bad usage, 130 stopped by Ctrl-C (after reporting what was measured). */
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    int code = run(args);
    // After Ctrl-C the JVM is already shutting down (its hook waited for this report); exit() would block.
    if (!StopSignal.signalled()) {
      System.exit(code);
    }
  }

  /** Runs the command line and returns its exit code. */
  public static int run(String... args) {
    return commandLine().execute(args);
  }

  /** The command tree with its error handling: usage errors exit 2 with a message naming the flag. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    cli.getSubcommands().get("jmh").setUnmatchedOptionsArePositionalParams(true); // -f 1 -wi 2 ... are JMH's
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof Checks.UsageException) {
        commandLine.getErr().println("commitlane " + commandLine.getCommandName() + ": " + e.getMessage());
        commandLine.getErr().println("(see: ./commitlane " + commandLine.getCommandName() + " --help)");
        return USAGE;
      }
      if (e instanceof StopSignal.StoppedException) {
        commandLine.getErr().println("commitlane " + commandLine.getCommandName() + ": stopped (Ctrl-C)");
        return CompareCommand.STOPPED;
      }
      commandLine.getErr().println("commitlane " + commandLine.getCommandName() + ": failed: " + e);
      e.printStackTrace(commandLine.getErr());
      return FAILED;
    });
    return cli;
  }

  /** The default job: {@code compare} with its defaults. */
  @Override
  public Integer call() {
    return spec.commandLine().getSubcommands().get("compare").execute();
  }
}
