package io.commitlane.bench.contention;

import com.typesafe.config.Config;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.CommitRunOptions;
import io.commitlane.bench.cli.PipelineOverrides;
import io.commitlane.bench.cli.ProgressOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.compare.CompareCommand;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.FlightRecording;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.report.Json;
import io.commitlane.bench.report.MachineInfo;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One scenario of the upstream contention benchmark ({@code occ-commit-contention}) with
 * its knobs, measured once per run: commits/s, latency percentiles (HdrHistogram), conflicts and
 * process CPU per commit, then one JSON line for scripts. This class reads the flags, fills in the
 * scenario's {@link BenchShape} and runs and reports the scenario; each scenario is a {@link
 * BenchScenario} of its own.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"One contention scenario with the upstream benchmark's knobs: commits/s, latency percentiles, conflicts, CPU per commit, "
        + "and a JSON line (the last line of output) for scripts.",
        "Scenarios (defaults as in the upstream benchmark's table):",
        "  one-db      --workers async workers (default 4) and --sync-workers commitSync threads (default 0) on one database, 64 keys",
        "  four-db     4 databases, --workers per database (default 1), 1,000 keys",
        "  mixed-sync  2 async + 2 commitSync workers on one database, 64 keys; reported separately",
        "  conflict    4 async workers read-modify-write 8 counters each from 1,000 keys: real conflicts; checks no update was lost",
        "  memory      --databases empty databases (default 10), in a fresh JVM",
        "  probe       a trivial task on Pekko's default dispatcher every ms, timed while 4 async workers commit 64 keys",
        "  txlog       --workers threads (default 4) append one --value-size entry per record to a transaction log, --durability",
        "  ingest      --records records (default 200,000) through the batching ingest sink"})
public final class BenchCommand implements Callable<Integer> {
  private static final List<String> SCENARIOS = List.of("one-db", "four-db", "mixed-sync", "conflict", "memory", "probe", "txlog", "ingest");

  @Option(names = "--scenario", defaultValue = "one-db", description = "one-db, four-db, mixed-sync, conflict, memory, probe, txlog, ingest. Default: ${DEFAULT-VALUE}")
  String scenario;

  @Option(names = "--workers", description = "Async workers (per database in four-db; writer threads in txlog). Default: the scenario's")
  Integer workers;

  @Option(names = "--sync-workers", description = "commitSync threads beside the async workers. Default: the scenario's")
  Integer syncWorkers;

  @Option(names = "--keys", description = "Keys per commit. Default: the scenario's")
  Integer keys;

  @Option(names = "--concurrency", defaultValue = "8", description = "Commits each async worker keeps in flight. Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--mode", defaultValue = "threads", description = "threads, two-lane, leaderless, actor (log appends). Default: ${DEFAULT-VALUE}")
  String mode;

  @Option(names = "--databases", defaultValue = "10", description = "memory: empty databases to open. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--records", defaultValue = "200000", description = "ingest: records to ingest. Default: ${DEFAULT-VALUE}")
  int records;

  @Option(names = "--ingest-parallelism", defaultValue = "1", description = "ingest: sink batches in flight, 1..64. Default: ${DEFAULT-VALUE}")
  int ingestParallelism;

  @Option(names = "--queue-capacity", description = "commitlane.commit-queue-capacity, 1..10000000. Default: the build's (4096)")
  Integer queueCapacity;

  @Mixin
  ProgressOption progress = new ProgressOption();

  @Option(names = "--jfr", paramLabel = "FILE", description = "Record this process with Flight Recorder (the JDK's default settings plus "
      + "every commitlane event) and write the recording to FILE at the end; read it with: jfr print --events 'io.commitlane.*' FILE")
  Path jfr;

  @Mixin
  TimingOptions timing = new TimingOptions(1, 1, 3);

  @Mixin
  CommitRunOptions options = new CommitRunOptions();

  @Spec
  CommandSpec spec;

  private PrintStream out;

  @Override
  public Integer call() throws Exception {
    out = System.out;
    if (!SCENARIOS.contains(scenario)) {
      throw Checks.usage("--scenario: unknown scenario '" + scenario + "'; known: " + String.join(", ", SCENARIOS));
    }
    timing.validate();
    options.workload.validate();
    Checks.range("--concurrency", concurrency, 1, 10_000);
    Checks.range("--databases", databases, 1, 1000);
    Checks.range("--records", records, 1, 100_000_000);
    BenchShape shape = shape();
    if (jfr != null) {
      FlightRecording.check("--jfr", jfr);
    }
    if (scenario.equals("txlog") && spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--mode")) {
      throw Checks.usage("--mode: the txlog scenario appends to a TransactionLog directly; the pipeline's mode does not apply");
    }
    Config config = BenchSystem.config();
    Checks.range("--ingest-parallelism", ingestParallelism, 1, 64);
    if (queueCapacity != null) {
      Checks.range("--queue-capacity", queueCapacity, 1, 10_000_000);
    }
    PipelineSettings settings = overrides().resolve(config);
    if ((long) shape.async() * concurrency > settings.commitQueueCapacity()) {
      throw Checks.usage("--workers " + shape.async() + " x --concurrency " + concurrency + " exceed the commit queue's capacity of "
          + settings.commitQueueCapacity());
    }
    BenchScenario measured = scenario(shape, settings, config);
    StopSignal.arm();
    Path root = options.dir.root("commitlane-bench");
    FlightRecording recording = jfr == null ? null : FlightRecording.start(jfr);
    try {
      out.println(header(shape, settings));
      out.println("  machine: " + MachineInfo.current().describe());
      List<Map<String, Object>> runs = new ArrayList<>();
      try {
        for (int r = 0; r < timing.runs; r++) {
          Map<String, Object> result = measured.measure(root.resolve("run-" + r));
          runs.add(result);
          out.println("run " + (r + 1) + ": " + result.get("summary"));
        }
      } catch (StopSignal.StoppedException e) {
        out.println("stopped (Ctrl-C) after " + runs.size() + " of " + timing.runs + " runs");
      }
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("scenario", scenario);
      json.put("partial", runs.size() < timing.runs);
      json.put("mode", mode);
      json.put("databases", shape.databases());
      json.put("workers", shape.async());
      json.put("syncWorkers", shape.sync());
      json.put("keys", shape.keys());
      json.put("keySpace", shape.keySpace());
      json.put("concurrency", concurrency);
      json.put("valueSize", options.workload.valueSize);
      json.put("wal", options.commitlane.wal);
      json.put("log", options.commitlane.log);
      json.put("overrides", overrides().asMap());
      runs.forEach(m -> m.remove("summary"));
      json.put("runs", runs);
      out.println(Json.write(json));
      return runs.size() < timing.runs ? CompareCommand.STOPPED : 0;
    } finally {
      if (recording != null) {
        recording.close();
        System.err.println("flight recording: " + recording.file() + " (jfr print --events 'io.commitlane.*' " + recording.file() + ")");
      }
      options.dir.cleanUp(root);
      StopSignal.finished();
    }
  }

  private BenchShape shape() {
    boolean keySpaceGiven = spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--key-space");
    int keySpace = options.workload.keySpace;
    BenchShape s = switch (scenario) {
      case "four-db" -> new BenchShape(4, or(workers, 1), or(syncWorkers, 0), or(keys, 1000), keySpace);
      case "mixed-sync" -> new BenchShape(1, or(workers, 2), or(syncWorkers, 2), or(keys, 64), keySpace);
      case "conflict" -> new BenchShape(1, or(workers, 4), or(syncWorkers, 0), or(keys, 8), keySpaceGiven ? keySpace : 1000);
      case "txlog" -> new BenchShape(0, or(workers, 4), 0, 1, keySpace);
      case "memory" -> new BenchShape(databases, 0, 0, 0, 0);
      case "ingest" -> new BenchShape(1, 0, 0, 1, keySpace);
      default -> new BenchShape(1, or(workers, 4), or(syncWorkers, 0), or(keys, 64), keySpace);
    };
    Checks.range("--workers", s.async(), scenario.equals("ingest") || scenario.equals("memory") ? 0 : 1, 256);
    Checks.range("--sync-workers", s.sync(), 0, 256);
    Checks.range("--keys", s.keys(), 0, 1_000_000);
    if (s.async() + s.sync() == 0 && !scenario.equals("memory") && !scenario.equals("ingest")) {
      throw Checks.usage("--workers and --sync-workers: at least one worker is needed");
    }
    return s;
  }

  private static int or(Integer v, int fallback) {
    return v != null ? v : fallback;
  }

  private String header(BenchShape s, PipelineSettings settings) {
    String what = switch (scenario) {
      case "memory" -> s.databases() + " empty databases in a fresh JVM";
      case "txlog" -> String.format(Locale.ROOT, "%d writers append one %d-byte entry per record, durability %s", s.async(),
          options.workload.valueSize, settings.log().durability().name().toLowerCase(Locale.ROOT));
      case "ingest" -> String.format(Locale.ROOT, "%,d records of %d bytes through Ingest.sink (batches of <= 1,000, parallelism %d)", records,
          options.workload.valueSize, ingestParallelism);
      default -> String.format(Locale.ROOT, "%d database%s, %d async workers (%d in flight each) + %d commitSync workers per database, %d keys per commit "
              + "from %,d%s", s.databases(), s.databases() == 1 ? "" : "s", s.async(), concurrency, s.sync(), s.keys(), s.keySpace(),
          scenario.equals("conflict") ? ", read-modify-write" : "");
    };
    return String.format(Locale.ROOT, "bench %s: %s; %d run%s of %.1f s warm-up + %.1f s; mode %s, WAL %s%s, commit-threads %d, occ %s/%d buckets",
        scenario, what, timing.runs, timing.runs == 1 ? "" : "s", timing.warmup, timing.seconds, mode, options.commitlane.wal ? "on" : "off",
        options.commitlane.log ? ", log on (" + settings.log().durability().name().toLowerCase(Locale.ROOT) + ")" : "",
        settings.commitThreads(), settings.storage().occValidation().name().toLowerCase(Locale.ROOT), settings.storage().occLockBuckets());
  }

  /** The scenario that each run measures. */
  private BenchScenario scenario(BenchShape shape, PipelineSettings settings, Config config) {
    int valueSize = options.workload.valueSize;
    return switch (scenario) {
      case "memory" -> new BenchMemoryScenario(databases);
      case "txlog" -> new BenchTxlogScenario(shape.async(), settings.log().durability(), valueSize, timing, progress.progress);
      case "ingest" -> new BenchIngestScenario(settings, config, records, ingestParallelism, valueSize, options.workload.keySpace,
          progress.progress);
      case "conflict" -> workerGroups(shape, BenchPipelineScenario.Extra.COUNTERS, settings, config);
      case "probe" -> workerGroups(shape, BenchPipelineScenario.Extra.DISPATCHER_PROBE, settings, config);
      default -> workerGroups(shape, BenchPipelineScenario.Extra.NONE, settings, config);
    };
  }

  private BenchScenario workerGroups(BenchShape shape, BenchPipelineScenario.Extra extra, PipelineSettings settings, Config config) {
    return new BenchPipelineScenario(shape, extra, settings, config, concurrency, options.workload.valueSize, options.commitlane.log, timing,
        progress.progress);
  }

  private PipelineOverrides overrides() {
    PipelineOverrides o = options.commitlane.overrides().plus(PipelineOverrides.none().mode("--mode", mode));
    return queueCapacity == null ? o : o.with("--queue-capacity", "commit-queue-capacity", queueCapacity);
  }
}
