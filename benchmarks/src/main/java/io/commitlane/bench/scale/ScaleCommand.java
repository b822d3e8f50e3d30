package io.commitlane.bench.scale;

import com.typesafe.config.Config;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.PipelineOverrides;
import io.commitlane.bench.cli.TypedCommand;
import io.commitlane.bench.compare.CompareCommand;
import io.commitlane.bench.dataset.BulkDataset;
import io.commitlane.bench.dataset.Counts;
import io.commitlane.bench.dataset.DatasetShape;
import io.commitlane.bench.dataset.LegDatabase;
import io.commitlane.bench.harness.AsyncContentionRunner;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.ResultsDirectory;
import io.commitlane.bench.report.Units;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * How commitlane's costs grow with the data: the pipeline (the build's default mode) against the
 * raw peer ({@code OptimisticTransactionDB}, same RocksDB options) on databases of each key count
 * (100-byte values) and of each value size (at {@code --value-size-keys} keys), each bulk loaded
 * into {@code --dir} once and reused by later runs. Every leg runs on a fresh copy; it reports
 * commits/s, process CPU per commit and the memory the open database held.
 */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"The pipeline against raw OptimisticTransactionDB (same RocksDB options) at each --keys count (100-byte values) and each "
        + "--value-sizes (at --value-size-keys keys): commits/s, CPU per commit (process CPU over the window / commits), and the memory of each "
        + "open database (native memory and live heap growth, and RocksDB's memtables, block cache and index and filter blocks). Each database is bulk loaded "
        + "into --dir once and reused by later runs. Prints a table and writes scale.md, scale.csv, scale.json and a ratio chart "
        + "(scale-ratios.png/.svg).",
        "Ctrl-C stops the run and reports the legs done, marked partial."})
public final class ScaleCommand implements Callable<Integer> {
  /** The value size of the key-count datasets. */
  static final int KEY_COUNT_VALUE_SIZE = 100;

  @Option(names = "--dir", required = true, description = "Directory for the databases (kept and reused) and the legs' copies")
  Path dir;

  @Option(names = "--keys", split = ",", defaultValue = "1M,10M,100M", converter = Counts.Converter.class,
      description = "Key counts, with 100-byte values (list; K, M, G are powers of 1,000). Default: ${DEFAULT-VALUE}")
  List<Long> keyCounts;

  @Option(names = "--value-sizes", split = ",", defaultValue = "100,1024,8192",
      description = "Value sizes in bytes, at --value-size-keys keys (list). Default: ${DEFAULT-VALUE}")
  List<Integer> valueSizes;

  @Option(names = "--value-size-keys", defaultValue = "1M", converter = Counts.Converter.class,
      description = "Keys of the value-size databases. Default: ${DEFAULT-VALUE}")
  long valueSizeKeys;

  @Option(names = "--runs", defaultValue = "3", description = "Rounds; each runs the pipeline and the raw peer once per database, in rotated order. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--warmup", defaultValue = "2", description = "Seconds each leg commits before its window opens. Default: ${DEFAULT-VALUE}")
  double warmup;

  @Option(names = "--seconds", defaultValue = "10", description = "Measured seconds per leg. Default: ${DEFAULT-VALUE}")
  double seconds;

  @Option(names = "--workers", defaultValue = "4", description = "Committing threads. Default: ${DEFAULT-VALUE}")
  int workers;

  @Option(names = "--concurrency", defaultValue = "8",
      description = "Commits each worker keeps in flight through the pipeline (the raw peer: 1 per thread). Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--keys-per-commit", defaultValue = "1", description = "Random keys each commit writes. Default: ${DEFAULT-VALUE}")
  int keysPerCommit;

  @Option(names = "--remove", description = "Remove the databases afterwards (default: keep them in --dir for the next run)")
  boolean remove;

  @Option(names = "--out", description = "Directory for scale.md, scale.csv, scale.json and the chart. Default: ./commitlane-results/<date-time>")
  Path out;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    keyCounts.forEach(k -> Checks.range("--keys", k, 1, Integer.MAX_VALUE));
    valueSizes.forEach(v -> Checks.range("--value-sizes", v, 1, 16 << 20));
    Checks.range("--value-size-keys", valueSizeKeys, 1, Integer.MAX_VALUE);
    Checks.range("--runs", runs, 1, 1000);
    Checks.nonNegative("--warmup", warmup);
    Checks.positive("--seconds", seconds);
    Checks.range("--workers", workers, 1, 256);
    Checks.range("--keys-per-commit", keysPerCommit, 1, 100_000);
    Config config = BenchSystem.config();
    PipelineSettings settings = PipelineOverrides.none().with("--wal", "wal", false).resolve(config);
    Checks.range("--concurrency", concurrency, 1, settings.commitQueueCapacity() / workers);
    List<DatasetShape> cells = cells();
    Variant pipeline = Variant.parse("--modes", settings.mode().settingName());
    Variant peer = Variant.parse("--modes", "optimistic");
    List<Variant> legs = List.of(pipeline, peer);
    Path outDir = ResultsDirectory.create(out);
    PrintStream stdout = System.out;
    MachineInfo machine = MachineInfo.current();
    ZonedDateTime started = ZonedDateTime.now();
    List<ScaleSample> samples = new ArrayList<>();
    Map<String, Object> datasets = new LinkedHashMap<>();
    boolean partial = false;
    StopSignal.arm();
    try {
      stdout.printf(Locale.ROOT, "scale: %s against %s on %d databases x %d runs of %.1f s warm-up + %.1f s; about %s of legs, plus building what %s lacks%n",
          pipeline.label(), peer.label(), cells.size(), runs, warmup, seconds,
          ProgressLine.clock(cells.size() * legs.size() * runs * (warmup + seconds + 5)), dir);
      stdout.printf(Locale.ROOT, "  databases: %s%n", String.join(", ", cells.stream().map(DatasetShape::label).toList()));
      stdout.printf(Locale.ROOT, "  %d workers x %d key%s per commit (random over every key, one value of the database's size per worker), "
          + "%d in flight per pipeline worker; WAL off%n", workers, keysPerCommit, keysPerCommit == 1 ? "" : "s", concurrency);
      stdout.printf(Locale.ROOT, "  machine: %s%n", machine.describe());
      ActorSystem<Void> system = BenchSystem.start("scale", config);
      try {
        ContentionRunner.deleteRecursively(LegDatabase.copies(dir));
        int leg = 0;
        for (DatasetShape cell : cells) {
          BulkDataset data = BulkDataset.ensure(dir.resolve(cell.name()), cell, settings.storage(), stdout);
          datasets.put(cell.name(), Map.of("tableBytes", data.tableBytes(), "reused", data.reused(), "buildSeconds", data.buildSeconds()));
          LegDatabase.Workload workload = new LegDatabase.Workload(system,
              new ContentionRunner((int) cell.keys(), cell.minValue(), warmup, seconds),
              new AsyncContentionRunner(system, (int) cell.keys(), cell.minValue(), warmup, seconds),
              new Load(workers, keysPerCommit), concurrency);
          for (int r = 0; r < runs; r++) {
            for (int i = 0; i < legs.size(); i++) {
              StopSignal.checkpoint();
              Variant v = legs.get((i + r) % legs.size());
              ScaleSample s = leg(cell, v, settings, data, LegDatabase.copies(dir).resolve("leg-" + leg++), workload, r);
              samples.add(s);
              stdout.printf(Locale.ROOT, "  %-20s run %d  %-30s %9s commits/s  CPU %7s µs/commit  memory %s (native %s + heap %s)  memtables %s  index+filters %s%n",
                  cell.label(), r + 1, v.label(), Units.count(s.commits().commitsPerSecond()), Units.micros(s.cpuNanosPerCommit()),
                  Units.mib(s.memory().total()), Units.mib(s.memory().nativeGrowth()), Units.mib(s.memory().liveHeapGrowth()),
                  Units.mib(s.memory().rocks().memtableBytes()), Units.mib(s.memory().rocks().tableReadersBytes()));
            }
          }
        }
      } catch (StopSignal.StoppedException e) {
        partial = true;
        stdout.println("  stopped (Ctrl-C): reporting the " + samples.size() + " legs done");
      } finally {
        BenchSystem.stop(system);
        ContentionRunner.deleteRecursively(LegDatabase.copies(dir));
      }
      ScaleReport report = new ScaleReport(cells, pipeline, peer, samples, partial, TypedCommand.of(spec), machine, started,
          settingsJson(datasets));
      stdout.println();
      stdout.print(report.tables());
      Files.writeString(outDir.resolve("scale.md"), report.markdownSection(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("scale.csv"), report.csv(), StandardCharsets.UTF_8);
      Files.writeString(outDir.resolve("scale.json"), report.json(), StandardCharsets.UTF_8);
      List<Path> charts = report.chart(outDir);
      stdout.println();
      stdout.println("results" + (partial ? " (partial)" : "") + ": " + outDir.toAbsolutePath() + "  (scale.md, scale.csv, scale.json"
          + (charts.isEmpty() ? "" : ", " + String.join(", ", charts.stream().map(p -> p.getFileName().toString()).toList())) + ")");
      return partial ? CompareCommand.STOPPED : 0;
    } finally {
      if (remove) {
        cells.forEach(c -> ContentionRunner.deleteRecursively(dir.resolve(c.name())));
      } else {
        stdout.println("databases kept for the next run in " + dir + " (--remove deletes them after a run)");
      }
      StopSignal.finished();
    }
  }

  /** Each key count at 100-byte values, then each value size at --value-size-keys; a database in both lists runs once. */
  private List<DatasetShape> cells() {
    Set<DatasetShape> cells = new LinkedHashSet<>();
    keyCounts.forEach(k -> cells.add(DatasetShape.fixed(k, KEY_COUNT_VALUE_SIZE)));
    valueSizes.forEach(v -> cells.add(DatasetShape.fixed(valueSizeKeys, v)));
    return List.copyOf(cells);
  }

  /** One leg on a fresh copy: commits, CPU per commit, and the memory the open database held as its window closed. */
  private ScaleSample leg(DatasetShape cell, Variant v, PipelineSettings settings, BulkDataset data, Path legDir, LegDatabase.Workload workload,
      int round) throws Exception {
    DatabaseMemory memory = DatabaseMemory.before();
    try (LegDatabase db = LegDatabase.open(v, settings, data, legDir, workload)) {
      CpuWindow cpu = new CpuWindow();
      PipelineSample s = db.measure(cpu.and(memory.of(db::numbers)));
      return new ScaleSample(cell, round, v, s.commits(), cpu.nanosPer(s.commits().commits()), memory.reading());
    }
  }

  private Map<String, Object> settingsJson(Map<String, Object> datasets) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("description", String.format(Locale.ROOT, "%d run%s of each committer per database, rotated, %s s warm-up + %s s measured each, on a "
            + "fresh copy of a bulk-loaded database; %d workers x %d key%s per commit, random over every key, one value of the database's size "
            + "per worker, %d in flight per pipeline worker (the raw peer: 1 per thread); WAL off. CPU is the process's over the window "
            + "(RocksDB's flushes and compactions included) divided by commits; memory is read as each window closes, the database open, against "
            + "a baseline before it opened: anonymous resident memory outside the Java heap plus the live heap, both after a full GC.",
        runs, runs == 1 ? "" : "s", warmup, seconds, workers, keysPerCommit, keysPerCommit == 1 ? "" : "s", concurrency));
    m.put("runs", runs);
    m.put("warmupSeconds", warmup);
    m.put("seconds", seconds);
    m.put("workers", workers);
    m.put("concurrency", concurrency);
    m.put("keysPerCommit", keysPerCommit);
    m.put("datasets", datasets);
    return m;
  }
}
