package io.commitlane.bench.pipeline;

import com.typesafe.config.Config;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.cli.WorkloadOptions;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.pipeline.Row.Committer;
import io.commitlane.bench.report.Units;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The actor commit pipeline (threads mode, and commitSync on the callers' threads), and its
 * blocking peer (legacy: commitSync as tasks on the default dispatcher), against raw rocksdbjni optimistic commits from the same number of threads, in
 * one process with one actor system, rows rotated per round, fresh database per measurement, WAL
 * off. Three scenarios: throughput under concurrent workers, one caller with one commit in flight,
 * and how long a trivial task waits on the default dispatcher during a burst.
 */
@Command(name = "pipeline", mixinStandardHelpOptions = true,
    description = "The actor commit pipeline (threads, commitSync), blocking commits on the default dispatcher (legacy) and raw OptimisticTransactionDB: throughput, "
        + "one-in-flight latency and a default-dispatcher probe (WAL off).")
public final class PipelineBench implements Callable<Integer> {
  private static final List<String> SCENARIOS = List.of("throughput", "latency", "probe");
  private static final List<String> VARIANTS = List.of("threads", "unmerged", "legacy", "commit-sync", "optimistic", "optimistic-async");
  /** commitlane's default commit-queue-capacity: more in flight than this is refused, not measured. */
  private static final int QUEUE_CAPACITY = 4096;

  @Option(names = "--loads", split = ",", defaultValue = "4x64,8x1,4x1000", converter = LoadConverter.class,
      description = "Throughput loads, WORKERSxKEYS (list). Default: ${DEFAULT-VALUE}")
  List<Load> loads;

  @Option(names = "--concurrency", defaultValue = "8",
      description = "Commits each asynchronous worker keeps in flight (synchronous threads keep 1). Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--matched-loads", split = ",", defaultValue = "8x1", converter = LoadConverter.class,
      description = "Loads (of --loads) whose asynchronous rows also run with 1 commit in flight per worker, "
          + "like for like with the one-commit-per-thread rows. Default: ${DEFAULT-VALUE}")
  List<Load> matchedLoads;

  @Option(names = "--latency-keys", split = ",", defaultValue = "1,64",
      description = "Keys per commit for one caller with one commit in flight (list). Default: ${DEFAULT-VALUE}")
  List<Integer> latencyKeys;

  @Option(names = "--probe-load", defaultValue = "4x64", converter = LoadConverter.class,
      description = "The asynchronous burst (WORKERSxKEYS, --concurrency in flight each) during the default-dispatcher probe. Default: ${DEFAULT-VALUE}")
  Load probeLoad;

  @Option(names = "--probe-period-ms", defaultValue = "1", description = "How often the probe submits its task, ms. Default: ${DEFAULT-VALUE}")
  double probePeriodMs;

  @Option(names = "--variants", split = ",", defaultValue = "threads,legacy,commit-sync,optimistic,optimistic-async",
      description = "Rows to run: threads, unmerged (threads with merged write groups off), legacy (blocking commitSync tasks on the default "
          + "dispatcher, --concurrency in flight per worker), commit-sync, "
          + "optimistic (the raw peer, 1 commit per thread; ratios need it), optimistic-async (the raw peer committing on a pool of "
          + "commit-threads threads, --concurrency in flight per worker). Default: ${DEFAULT-VALUE}")
  List<String> variants;

  @Option(names = "--scenarios", split = ",", defaultValue = "throughput,latency,probe",
      description = "Scenarios to run: throughput, latency, probe. Default: ${DEFAULT-VALUE}")
  List<String> scenarios;

  @Option(names = "--log",
      description = "Also run every commitlane row with its commits writing the transaction log: one entry (the value) per key, "
          + "with the log's configured durability (commitlane.txlog).")
  boolean log;

  @Mixin
  TimingOptions timing = new TimingOptions(3, 1, 2);

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Mixin
  DirOption dir = new DirOption();

  @Option(names = "--wal", description = "RocksDB's write-ahead log on for every row, the raw peer included (default: off)")
  boolean wal;

  private final PrintStream out = System.out;
  private int cells;

  @Override
  public Integer call() throws Exception {
    validate();
    Path root = dir.root("commitlane-pipeline");
    ActorSystem<Void> system = BenchSystem.start("bench", BenchSystem.config());
    try {
      PipelineTrials trials = new PipelineTrials(system, workload.keySpace, workload.valueSize, timing.warmup, timing.seconds,
          Duration.ofNanos((long) (probePeriodMs * 1e6)), wal);
      printHeader(system, trials);
      Map<Load, Map<Row, List<PipelineSample>>> throughput = new LinkedHashMap<>();
      if (scenarios.contains("throughput")) {
        for (Load load : loads) {
          throughput.put(load, measure(PipelineReport.label(load), throughputTrials(trials, load), root, PipelineBench::progress));
        }
      }
      Map<Load, Map<Row, List<PipelineSample>>> latency = new LinkedHashMap<>();
      if (scenarios.contains("latency")) {
        for (int keys : latencyKeys) {
          Load load = new Load(1, keys);
          latency.put(load, measure(PipelineReport.label(load), latencyTrials(trials, load), root, PipelineBench::progress));
        }
      }
      Map<Row, List<ProbeSample>> probe = new LinkedHashMap<>();
      if (scenarios.contains("probe")) {
        probe = measure("probe", probeTrials(trials), root, PipelineBench::progress);
      }
      printReport(throughput, latency, probe);
      return 0;
    } finally {
      BenchSystem.stop(system);
      dir.cleanUp(root);
    }
  }

  /** Async rows (at 1 in flight too for matched loads), then the one-commit-per-thread rows. */
  private List<Trial<PipelineSample>> throughputTrials(PipelineTrials trials, Load load) {
    List<Integer> inFlights = matchedLoads.contains(load) && concurrency != 1 ? List.of(1, concurrency) : List.of(concurrency);
    List<Trial<PipelineSample>> rows = new ArrayList<>();
    for (int inFlight : inFlights) {
      rows.addAll(asyncRows(trials, load, inFlight));
    }
    rows.addAll(oneCommitPerThreadRows(trials, load));
    return rows;
  }

  private List<Trial<PipelineSample>> latencyTrials(PipelineTrials trials, Load oneCaller) {
    List<Trial<PipelineSample>> rows = new ArrayList<>(asyncRows(trials, oneCaller, 1));
    rows.addAll(oneCommitPerThreadRows(trials, oneCaller));
    return rows;
  }

  /** The selected modes of {@code commit(txn)}, with and (given --log) without the log, and the async raw peer. */
  private List<Trial<PipelineSample>> asyncRows(PipelineTrials trials, Load load, int inFlight) {
    List<Trial<PipelineSample>> rows = new ArrayList<>();
    for (boolean withLog : logSettings()) {
      if (variants.contains("threads")) {
        rows.add(trials.async(Committer.THREADS, load, inFlight, withLog));
      }
      if (variants.contains("unmerged")) {
        rows.add(trials.async(Committer.UNMERGED, load, inFlight, withLog));
      }
      if (variants.contains("legacy")) {
        rows.add(trials.async(Committer.LEGACY, load, inFlight, withLog));
      }
    }
    if (variants.contains("optimistic-async")) {
      rows.add(trials.rawOptimisticAsync(load, inFlight));
    }
    return rows;
  }

  /** commitSync (with and, given --log, without the log) and the raw peer, if selected. */
  private List<Trial<PipelineSample>> oneCommitPerThreadRows(PipelineTrials trials, Load load) {
    List<Trial<PipelineSample>> rows = new ArrayList<>();
    if (variants.contains("commit-sync")) {
      for (boolean withLog : logSettings()) {
        rows.add(trials.commitSync(load, withLog));
      }
    }
    if (variants.contains("optimistic")) {
      rows.add(trials.rawOptimistic(load));
    }
    return rows;
  }

  /** Idle first (the floor), then a burst in each selected mode. */
  private List<Trial<ProbeSample>> probeTrials(PipelineTrials trials) {
    List<Trial<ProbeSample>> rows = new ArrayList<>(List.of(trials.probeIdle()));
    if (variants.contains("threads")) {
      rows.add(trials.probeDuring(Committer.THREADS, probeLoad, concurrency));
    }
    if (variants.contains("legacy")) {
      rows.add(trials.probeDuring(Committer.LEGACY, probeLoad, concurrency));
    }
    return rows;
  }

  private List<Boolean> logSettings() {
    return log ? List.of(false, true) : List.of(false);
  }

  /** Every trial once per round, starting one further along each round; results in round order. */
  private <S> Map<Row, List<S>> measure(String scenario, List<Trial<S>> trials, Path root, Function<S, String> progress) throws Exception {
    Map<Row, List<S>> results = new LinkedHashMap<>();
    trials.forEach(t -> results.put(t.row(), new ArrayList<>()));
    for (int r = 0; r < timing.runs; r++) {
      for (int i = 0; i < trials.size(); i++) {
        Trial<S> trial = trials.get((i + r) % trials.size());
        S sample = trial.run(root.resolve("cell-" + (cells++)));
        results.get(trial.row()).add(sample);
        out.printf(Locale.ROOT, "  %-22s run %d  %-44s %s%n", scenario, r + 1, trial.row().label(), progress.apply(sample));
      }
    }
    return results;
  }

  private static String progress(PipelineSample s) {
    Measurement m = s.commits();
    return String.format(Locale.ROOT, "%8s commits/s  conflicts %6s  p50 %8s us  p99 %9s us%s", Units.count(m.commitsPerSecond()),
        Units.percent(m.conflictRate()), Units.micros(m.p50Nanos()), Units.micros(m.p99Nanos()),
        s.executorsStarted() < 0 ? "" : "  executors " + s.executorsStarted());
  }

  private static String progress(ProbeSample s) {
    return String.format(Locale.ROOT, "probe p50 %8s us  p99 %9s us  (%d probes)%s", Units.micros(s.p50Nanos()), Units.micros(s.p99Nanos()),
        s.probes(), s.burst() == null ? "" : "  burst " + progress(s.burst()));
  }

  private void printHeader(ActorSystem<?> system, PipelineTrials trials) {
    int cores = Runtime.getRuntime().availableProcessors();
    out.printf(Locale.ROOT, "pipeline bench: %d runs x (%.1fs warm-up + %.1fs), %d-byte values, %,d keys, WAL %s, %d cores, Java %s%n",
        timing.runs, timing.warmup, timing.seconds, workload.valueSize, workload.keySpace, wal ? "on" : "off", cores,
        System.getProperty("java.version"));
    out.printf(Locale.ROOT, "  commit-threads %d, commit-queue-capacity %d; default dispatcher: fork-join, parallelism %d (legacy commits and all completions run there)%n",
        trials.threadsSettings().commitThreads(), trials.threadsSettings().commitQueueCapacity(), defaultDispatcherParallelism(system, cores));
    out.printf(Locale.ROOT, "  async workers: plain threads, %d commits in flight each (the async raw peer commits on a pool of %d threads); "
        + "sync rows and the raw peer: 1 per thread; latency from begin to completion callback%n",
        concurrency, trials.threadsSettings().commitThreads());
    out.println(log ? "  log: rows marked '+ log' write one transaction-log entry (the value) per key"
        : "  log: not measured (--log adds rows whose commits write the transaction log)");
  }

  /** What Pekko sizes its fork-join pool to: ceil(cores x factor), clamped to [min, max]. */
  private static int defaultDispatcherParallelism(ActorSystem<?> system, int cores) {
    Config fj = system.settings().config().getConfig("pekko.actor.default-dispatcher.fork-join-executor");
    int scaled = (int) Math.ceil(cores * fj.getDouble("parallelism-factor"));
    return Math.min(Math.max(scaled, fj.getInt("parallelism-min")), fj.getInt("parallelism-max"));
  }

  private void printReport(Map<Load, Map<Row, List<PipelineSample>>> throughput, Map<Load, Map<Row, List<PipelineSample>>> latency,
      Map<Row, List<ProbeSample>> probe) {
    String rounds = timing.runs + (timing.runs == 1 ? " run" : " runs");
    out.println();
    if (!throughput.isEmpty()) {
      out.println(PipelineReport.commitTable("Throughput, " + rounds + ", median [range]", throughput));
    }
    if (!latency.isEmpty()) {
      out.println(PipelineReport.commitTable("One caller, one commit in flight, " + rounds + ", median [range]", latency));
    }
    if (!probe.isEmpty()) {
      out.println(PipelineReport.probeTable(String.format(Locale.ROOT,
          "Default-dispatcher probe: a trivial task every %s ms, submit to run, during %s (%d in flight each), %s",
          probePeriodMs, PipelineReport.label(probeLoad), concurrency, rounds), probe));
    }
    out.print(PipelineReport.targets(throughput, latency, probe));
    out.print(PipelineReport.writeGroupTargets(throughput, latency));
    out.print(PipelineReport.conflictTargets(throughput));
  }

  private void validate() {
    timing.validate();
    workload.validate();
    Checks.range("--concurrency", concurrency, 1, QUEUE_CAPACITY);
    Checks.positive("--probe-period-ms", probePeriodMs);
    for (Load l : loads) {
      checkLoad("--loads", l);
    }
    for (Load l : matchedLoads) {
      checkLoad("--matched-loads", l);
    }
    checkLoad("--probe-load", probeLoad);
    latencyKeys.forEach(k -> Checks.range("--latency-keys", k, 1, 1_000_000));
    for (String v : variants) {
      if (!VARIANTS.contains(v)) {
        throw Checks.usage("--variants: unknown variant '" + v + "'; known: " + String.join(", ", VARIANTS));
      }
    }
    for (String s : scenarios) {
      if (!SCENARIOS.contains(s)) {
        throw Checks.usage("--scenarios: unknown scenario '" + s + "'; known: " + String.join(", ", SCENARIOS));
      }
    }
  }

  private void checkLoad(String flag, Load load) {
    Checks.range(flag + " workers", load.threads(), 1, 256);
    Checks.range(flag + " keys", load.keys(), 1, 1_000_000);
    if ((long) load.threads() * concurrency > QUEUE_CAPACITY) {
      throw Checks.usage(flag + " " + load.threads() + " workers x --concurrency " + concurrency
          + " commits in flight exceed the commit queue's capacity of " + QUEUE_CAPACITY);
    }
  }

  /** "4x64": 4 workers, 64 keys per commit. */
  public static final class LoadConverter implements ITypeConverter<Load> {
    @Override
    public Load convert(String value) {
      String[] parts = value.trim().toLowerCase(Locale.ROOT).split("x");
      try {
        if (parts.length == 2) {
          return new Load(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new TypeConversionException("'" + value + "' is not WORKERSxKEYS, e.g. 4x64");
    }
  }
}
