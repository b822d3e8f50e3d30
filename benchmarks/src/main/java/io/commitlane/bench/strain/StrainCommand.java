package io.commitlane.bench.strain;

import com.typesafe.config.Config;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.PipelineOverrides;
import io.commitlane.bench.cli.TypedCommand;
import io.commitlane.bench.compare.CompareCommand;
import io.commitlane.bench.dataset.BulkDataset;
import io.commitlane.bench.dataset.DatasetShape;
import io.commitlane.bench.dataset.LegDatabase;
import io.commitlane.bench.harness.AsyncContentionRunner;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.CommitValues;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.DispatcherProbe;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.ResultsDirectory;
import io.commitlane.bench.report.Units;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Commits under compaction debt: a database of {@code --size-gb} of 1-8 KiB values (bulk loaded
 * once, reused while its directory is kept), then legs of equal length, rotated per round, each
 * on a fresh copy of it: the pipeline in each of {@code --modes}, {@code commitSync} on the
 * workers' threads, and the raw peer ({@code OptimisticTransactionDB}, same RocksDB options). Every
 * leg writes random keys of the whole space with values of mixed sizes, fast enough that flushes
 * outrun compaction and RocksDB stalls writes; it reports commits/s, latency, the default-dispatcher
 * probe, stall time, pending compaction and level-0 files.
 */
@Command(name = "strain", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Commits while compaction debt accumulates: a database of --size-gb (1-8 KiB values, bulk loaded into --dir once and reused "
        + "if kept), then rotated legs of --leg-seconds on fresh copies of it: the pipeline in every --modes, commitSync, and raw "
        + "OptimisticTransactionDB with the same RocksDB options. Per leg: commits/s, p50/p99, default-dispatcher probe p50/p99, write-stall time, "
        + "pending compaction bytes and level-0 files (max and end), CPU per commit. Prints a table and writes strain.md, strain.csv and "
        + "strain.json.",
        "Ctrl-C stops the run, reports the legs done, marked partial, and removes what it built unless --keep."})
public final class StrainCommand implements Callable<Integer> {
  /** The legacy leg's commits block the default dispatcher for as long as RocksDB stops writes: its probe tasks may wait that long. */
  private static final Duration PROBE_STRAGGLER_TIMEOUT = Duration.ofMinutes(5);
  static final int MIN_VALUE = 1024;
  static final int MAX_VALUE = 8192;

  @Option(names = "--dir", required = true, description = "Directory for the database and the legs' copies (needs --size-gb and the legs' writes free)")
  Path dir;

  @Option(names = "--size-gb", defaultValue = "15", description = "Value bytes the database holds at least, GiB. Default: ${DEFAULT-VALUE}")
  double sizeGb;

  @Option(names = "--leg-seconds", defaultValue = "120", description = "Measured seconds per leg. Default: ${DEFAULT-VALUE}")
  double legSeconds;

  @Option(names = "--warmup", defaultValue = "5", description = "Seconds each leg commits before its window opens. Default: ${DEFAULT-VALUE}")
  double warmup;

  @Option(names = "--runs", defaultValue = "3", description = "Rounds; each runs every leg once, starting one further along. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--modes", split = ",", paramLabel = "MODE",
      description = "Pipeline modes to run a leg of, by their commitlane.mode names (${COMPLETION-CANDIDATES}; leaderless and actor too), "
          + "and legacy: blocking commitSync tasks on the default dispatcher, the baseline. Default: the build's commitlane.mode, and legacy", completionCandidates = ModeNames.class)
  List<String> modes;

  @Option(names = "--workers", defaultValue = "4", description = "Committing threads. Default: ${DEFAULT-VALUE}")
  int workers;

  @Option(names = "--concurrency", defaultValue = "8",
      description = "Commits each worker keeps in flight in the pipeline legs (commitSync and the raw peer: 1 per thread). Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--keys-per-commit", defaultValue = "1", description = "Random keys each commit writes. Default: ${DEFAULT-VALUE}")
  int keysPerCommit;

  @Option(names = "--probe-period-ms", defaultValue = "1", description = "How often the probe submits its task to the default dispatcher, ms. Default: ${DEFAULT-VALUE}")
  double probePeriodMs;

  @Option(names = "--keep", description = "Keep the database in --dir afterwards, for the next run to reuse (default: remove it)")
  boolean keep;

  @Option(names = "--out", description = "Directory for strain.md, strain.csv and strain.json. Default: ./commitlane-results/<date-time>")
  Path out;

  @Spec
  CommandSpec spec;

  /** The mode names of this build, for --help. */
  static final class ModeNames extends ArrayList<String> {
    ModeNames() {
      super(PipelineOverrides.pipelineModes());
    }
  }

  @Override
  public Integer call() throws Exception {
    Checks.positive("--size-gb", sizeGb);
    Checks.range("--size-gb", (long) Math.ceil(sizeGb), 1, 10_000);
    Checks.positive("--leg-seconds", legSeconds);
    Checks.nonNegative("--warmup", warmup);
    Checks.range("--runs", runs, 1, 1000);
    Checks.range("--workers", workers, 1, 256);
    Checks.range("--keys-per-commit", keysPerCommit, 1, 100_000);
    Checks.positive("--probe-period-ms", probePeriodMs);
    Config config = BenchSystem.config();
    PipelineOverrides walOff = PipelineOverrides.none().with("--wal", "wal", false);
    PipelineSettings base = walOff.resolve(config);
    Checks.range("--concurrency", concurrency, 1, base.commitQueueCapacity() / workers);
    List<Variant> legs = legs(base);
    Map<Variant, PipelineSettings> settings = new LinkedHashMap<>();
    for (Variant v : legs) {
      settings.put(v, walOff.plus(v.overrides()).resolve(config));
    }
    Variant legacy = legs.stream().filter(v -> v.kind() == Variant.Kind.LEGACY && v.overrides().asMap().isEmpty()).findFirst().orElse(null);
    DatasetShape shape = DatasetShape.ofValueBytes((long) (sizeGb * (1L << 30)), MIN_VALUE, MAX_VALUE);
    Path outDir = ResultsDirectory.create(out);
    PrintStream stdout = System.out;
    MachineInfo machine = MachineInfo.current();
    ZonedDateTime started = ZonedDateTime.now();
    boolean createdDir = !Files.exists(dir);
    Path datasetDir = dir.resolve(shape.name());
    List<StrainSample> samples = new ArrayList<>();
    boolean partial = false;
    Map<String, Object> dataset = new LinkedHashMap<>();
    StopSignal.arm();
    try {
      stdout.printf(Locale.ROOT, "strain: %s in %s; %d legs x %d runs of %.1f s warm-up + %.1f s; about %s of legs%n", shape, datasetDir,
          legs.size(), runs, warmup, legSeconds, ProgressLine.clock(legs.size() * runs * (warmup + legSeconds + 10)));
      stdout.printf(Locale.ROOT, "  legs: %s%n", String.join(", ", legs.stream().map(Variant::label).toList()));
      stdout.printf(Locale.ROOT, "  %d workers x %d key%s per commit (random over all %,d keys, values of %d-%d bytes), %d in flight per pipeline worker; WAL off%n",
          workers, keysPerCommit, keysPerCommit == 1 ? "" : "s", shape.keys(), MIN_VALUE, MAX_VALUE, concurrency);
      stdout.printf(Locale.ROOT, "  machine: %s%n", machine.describe());
      BulkDataset data = BulkDataset.ensure(datasetDir, shape, base.storage(), stdout);
      dataset.putAll(datasetJson(data));
      ActorSystem<Void> system = BenchSystem.start("strain", config);
      try {
        LegDatabase.Workload workload = new LegDatabase.Workload(system,
            new ContentionRunner((int) shape.keys(), values(), warmup, legSeconds),
            new AsyncContentionRunner(system, (int) shape.keys(), values(), warmup, legSeconds, false),
            new Load(workers, keysPerCommit), concurrency);
        ContentionRunner.deleteRecursively(LegDatabase.copies(dir));
        int leg = 0;
        for (int r = 0; r < runs; r++) {
          for (int i = 0; i < legs.size(); i++) {
            StopSignal.checkpoint();
            Variant v = legs.get((i + r) % legs.size());
            StrainSample s = leg(system, v, settings.get(v), data, LegDatabase.copies(dir).resolve("leg-" + leg++), workload, r);
            samples.add(s);
            stdout.printf(Locale.ROOT, "  run %d  %-36s %9s commits/s  p99 %9s µs  probe p99 %9s µs  stall %5.1f s  pending max %9s  L0 max %3d%n",
                r + 1, v.label(), Units.count(s.commits().commitsPerSecond()), Units.micros(s.commits().p99Nanos()),
                Units.micros(s.probe().p99Nanos()), Math.max(0, s.debt().stallMicros()) / 1e6, Units.bytes(s.debt().pendingBytesMax()),
                s.debt().level0FilesMax());
          }
        }
      } catch (StopSignal.StoppedException e) {
        partial = true;
        stdout.println("  stopped (Ctrl-C): reporting the " + samples.size() + " legs done");
      } finally {
        BenchSystem.stop(system);
        ContentionRunner.deleteRecursively(LegDatabase.copies(dir));
      }
      StrainReport report = new StrainReport(legs, legacy, samples, partial, TypedCommand.of(spec), machine, started, settingsJson(shape), dataset);
      stdout.println();
      stdout.print(report.tables());
      Files.writeString(outDir.resolve("strain.md"), report.markdownSection(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("strain.csv"), report.csv(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("strain.json"), report.json(), StandardCharsets.UTF_8);
      stdout.println();
      stdout.println("results" + (partial ? " (partial)" : "") + ": " + outDir.toAbsolutePath() + "  (strain.md, strain.csv, strain.json)");
      return partial ? CompareCommand.STOPPED : 0;
    } finally {
      cleanUp(datasetDir, createdDir, stdout);
      StopSignal.finished();
    }
  }

  /** The default mode first, then commitSync, the other modes, legacy (blocking commits) and the raw peer. */
  private List<Variant> legs(PipelineSettings base) {
    Set<String> names = new LinkedHashSet<>();
    if (modes == null || modes.isEmpty()) {
      names.add(base.mode().settingName());
      names.add("legacy");
    } else {
      modes.forEach(m -> names.add(m.trim().toLowerCase(Locale.ROOT)));
    }
    List<Variant> pipeline = new ArrayList<>();
    for (String m : names) {
      if (!PipelineOverrides.isModeName(m) && !m.equals("legacy")) {
        throw Checks.usage("--modes: unknown mode '" + m + "'; this build's modes: " + String.join(", ", PipelineOverrides.pipelineModes())
            + " (and the log's append modes leaderless, actor), or legacy (blocking commits on the default dispatcher, the baseline)");
      }
      pipeline.add(Variant.parse("--modes", m));
    }
    List<Variant> legs = new ArrayList<>(pipeline.subList(0, 1));
    legs.add(Variant.parse("--modes", "commit-sync"));
    legs.addAll(pipeline.subList(1, pipeline.size()));
    legs.add(Variant.parse("--modes", "optimistic"));
    return legs;
  }

  /** Values of every size in [1 KiB, 8 KiB], as the dataset holds. */
  private static CommitValues values() {
    return CommitValues.mixed(MIN_VALUE, MAX_VALUE, 1024, 0x57A1L);
  }

  /** One leg on a fresh copy: its commits, CPU, the probe and the compaction debt over one window. */
  private StrainSample leg(ActorSystem<?> system, Variant v, PipelineSettings settings, BulkDataset dataset, Path legDir,
      LegDatabase.Workload workload, int round) throws Exception {
    try (LegDatabase db = LegDatabase.open(v, settings, dataset, legDir, workload);
        DispatcherProbe probe = DispatcherProbe.start(system.dispatchers().lookup(DispatcherSelector.defaultDispatcher()),
            Duration.ofNanos((long) (probePeriodMs * 1e6)), PROBE_STRAGGLER_TIMEOUT)) {
      CpuWindow cpu = new CpuWindow();
      CompactionDebt debt = new CompactionDebt(db::numbers, CompactionDebt.DEFAULT_PERIOD);
      PipelineSample s = db.measure(cpu.and(probe).and(debt));
      var w = probe.window();
      return new StrainSample(round, v, s.commits(), cpu.nanosPer(s.commits().commits()),
          new ProbeSample(w.getValueAtPercentile(50), w.getValueAtPercentile(99), w.getTotalCount(), null), debt.window());
    }
  }

  private Map<String, Object> datasetJson(BulkDataset dataset) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("keys", dataset.shape().keys());
    m.put("minValue", dataset.shape().minValue());
    m.put("maxValue", dataset.shape().maxValue());
    m.put("valueBytes", dataset.shape().valueBytes());
    m.put("tableBytes", dataset.tableBytes());
    m.put("reused", dataset.reused());
    m.put("buildSeconds", dataset.buildSeconds());
    return m;
  }

  private Map<String, Object> settingsJson(DatasetShape shape) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("description", String.format(Locale.ROOT, "%d run%s of every leg, rotated, %s s warm-up + %s s measured each, on a fresh copy of a database "
            + "of %,d keys with %d-%d-byte values (%.2f GiB); %d workers x %d key%s per commit, random over every key, values of mixed sizes, "
            + "%d in flight per pipeline worker (commitSync and the raw peer: 1 per thread); WAL off.", runs, runs == 1 ? "" : "s", warmup,
        legSeconds, shape.keys(), MIN_VALUE, MAX_VALUE, shape.valueBytes() / (double) (1L << 30), workers, keysPerCommit,
        keysPerCommit == 1 ? "" : "s", concurrency));
    m.put("runs", runs);
    m.put("warmupSeconds", warmup);
    m.put("legSeconds", legSeconds);
    m.put("workers", workers);
    m.put("concurrency", concurrency);
    m.put("keysPerCommit", keysPerCommit);
    m.put("probePeriodMs", probePeriodMs);
    return m;
  }

  /** The legs' copies are always gone; the database too unless --keep, and --dir if this run made it and it is empty. */
  private void cleanUp(Path datasetDir, boolean createdDir, PrintStream stdout) {
    ContentionRunner.deleteRecursively(LegDatabase.copies(dir));
    if (keep) {
      stdout.println("kept the database for the next run: " + datasetDir);
      return;
    }
    ContentionRunner.deleteRecursively(datasetDir);
    ContentionRunner.deleteRecursively(datasetDir.resolveSibling(datasetDir.getFileName() + ".building"));
    if (createdDir) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        // not empty: something else was put there meanwhile, and stays
      }
    }
  }
}
