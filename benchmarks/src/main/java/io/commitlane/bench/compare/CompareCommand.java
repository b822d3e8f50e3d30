package io.commitlane.bench.compare;

import com.typesafe.config.Config;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.CommitRunOptions;
import io.commitlane.bench.cli.PipelineOverrides;
import io.commitlane.bench.cli.ProgressOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.cli.TypedCommand;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.pipeline.PipelineBench;
import io.commitlane.bench.pipeline.PipelineReport;
import io.commitlane.bench.report.ChartWriter;
import io.commitlane.bench.report.MachineInfo;
import io.commitlane.bench.report.ResultsDirectory;
import io.commitlane.bench.report.Units;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The README's main job: commitlane variants and peers (raw rocksdbjni, LMDB) under the same
 * loads in one process, rotated, several rounds each; a Markdown table per load, a JSON file and
 * charts. With no arguments it takes about two minutes on two cores.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = {"Compare commitlane variants with raw rocksdbjni and LMDB under the same loads, in one process, rotated: "
        + "Markdown tables (median [min-max]), a JSON file and PNG/SVG charts. With no arguments: the default comparison (about 2 minutes on 2 cores).",
        "Ctrl-C stops the run and reports what was measured so far, marked partial."})
public final class CompareCommand implements Callable<Integer> {
  static final String DEFAULT_VARIANTS = "threads,legacy,commit-sync,optimistic,optimistic-async,write-batch,lmdb";
  /** Exit code after Ctrl-C, as a shell reports a SIGINT: 128 + 2. */
  public static final int STOPPED = 130;

  @Option(names = "--variants", split = ",", defaultValue = DEFAULT_VARIANTS,
      description = "What to compare: " + Variant.KNOWN + ". Default: ${DEFAULT-VALUE}")
  List<String> variantSpecs;

  @Option(names = "--loads", split = ",", defaultValue = "4x64,8x1", converter = PipelineBench.LoadConverter.class,
      description = "Loads, WORKERSxKEYS (list): workers committing, keys per commit; a table each. Default: ${DEFAULT-VALUE}")
  List<Load> loads;

  @Option(names = "--concurrency", defaultValue = "8",
      description = "Commits each worker of a pipeline variant and of optimistic-async keeps in flight (commitSync and the other peers: 1 per thread). "
          + "Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--read-first",
      description = "Every commit first reads the keys it writes: tracked reads in commitlane (validated at commit), getForUpdate in "
          + "raw OptimisticTransactionDB, plain reads in write-batch and LMDB. Without it, commits write blindly (they read nothing).")
  boolean readFirst;

  @Option(names = "--out", description = "Directory for compare.md, compare.json and the charts. Default: ./commitlane-results/<date-time>")
  Path out;

  @Option(names = "--markdown-out", description = "Also write the README-ready section (command, machine, date, tables) to this file.")
  Path markdownOut;

  @Mixin
  ProgressOption progress = new ProgressOption();

  @Mixin
  TimingOptions timing = new TimingOptions(3, 0.5, 2);

  @Mixin
  CommitRunOptions options = new CommitRunOptions();

  @Spec
  CommandSpec spec;

  /** Test seam: told before and after each cell. */
  Comparison.CellListener listener = Comparison.CellListener.NONE;

  private PrintStream stdout;
  /** The async raw peer's pool: the run's commit-threads. */
  private int peerCommitThreads;

  @Override
  public Integer call() throws Exception {
    stdout = System.out;
    timing.validate();
    options.workload.validate();
    Checks.range("--concurrency", concurrency, 1, 10_000);
    List<Variant> variants = parseVariants();
    loads.forEach(l -> {
      Checks.range("--loads workers", l.threads(), 1, 256);
      Checks.range("--loads keys", l.keys(), 1, 1_000_000);
    });
    Config config = BenchSystem.config();
    Map<Variant, PipelineSettings> settings = resolve(variants, config);
    peerCommitThreads = options.commitlane.overrides().resolve(config).commitThreads();
    Path outDir = outputDirectory();
    ZonedDateTime started = ZonedDateTime.now();
    MachineInfo machine = MachineInfo.current();
    CompareResults results = new CompareResults(loads, variants, timing.runs);
    StopSignal.arm();
    try {
      printHeader(machine, variants);
      Path root = options.dir.root("commitlane-compare");
      ActorSystem<Void> system = BenchSystem.start("compare", config);
      CellProgress cells = new CellProgress(results.cellsPlanned, timing);
      try (ProgressLine line = ProgressLine.start(System.err, progress.progress, cells::status)) {
        Comparison.CellListener print = new Comparison.CellListener() {
          @Override
          public void cellStarted(int index, Load load, Variant variant, int round) {
            cells.started(load, variant, round);
            listener.cellStarted(index, load, variant, round);
          }

          @Override
          public void cellFinished(int index, Load load, Variant variant, CompareSample s) {
            cells.finished();
            line.println(stdout, String.format(Locale.ROOT, "  %-22s run %d  %-40s %9s commits/s  conflicts %6s  p50 %9s µs  p99 %9s µs  CPU %7s µs/commit",
                PipelineReport.label(load), s.round() + 1, variant.label(), Units.count(s.commits().commitsPerSecond()),
                Units.percent(s.commits().conflictRate()), Units.micros(s.commits().p50Nanos()), Units.micros(s.commits().p99Nanos()),
                Units.micros(s.cpuNanosPerCommit())));
            listener.cellFinished(index, load, variant, s);
          }
        };
        new Comparison(system, settings, options.workload, timing, concurrency, peerCommitThreads, options.commitlane.log,
            options.commitlane.wal, readFirst).run(results, root, print);
      } catch (StopSignal.StoppedException e) {
        results.markPartial();
        stdout.println("  stopped (Ctrl-C): reporting the " + results.cellsDone() + " of " + results.cellsPlanned + " measurements done");
      } finally {
        BenchSystem.stop(system);
        options.dir.cleanUp(root);
      }
      report(results, machine, started, outDir);
      return results.partial() ? STOPPED : 0;
    } finally {
      StopSignal.finished();
    }
  }

  private List<Variant> parseVariants() {
    List<Variant> variants = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String s : variantSpecs) {
      Variant v = Variant.parse("--variants", s);
      if (!seen.add(v.label())) {
        throw Checks.usage("--variants: '" + s + "' is listed twice");
      }
      variants.add(v);
    }
    if (variants.isEmpty()) {
      throw Checks.usage("--variants: give at least one variant");
    }
    return variants;
  }

  /** Every commitlane variant's settings, validated before anything runs. */
  private Map<Variant, PipelineSettings> resolve(List<Variant> variants, Config config) {
    Map<Variant, PipelineSettings> settings = new LinkedHashMap<>();
    PipelineOverrides flags = options.commitlane.overrides();
    for (Variant v : variants) {
      if (!v.kind().isCommitlane()) {
        continue;
      }
      PipelineSettings s = flags.plus(v.overrides()).resolve(config);
      for (Load l : loads) {
        if (v.kind() == Variant.Kind.PIPELINE && (long) l.threads() * concurrency > s.commitQueueCapacity()) {
          throw Checks.usage("--loads " + l.threads() + " workers x --concurrency " + concurrency
              + " commits in flight exceed the commit queue's capacity of " + s.commitQueueCapacity() + " (" + v.spec() + ")");
        }
      }
      settings.put(v, s);
    }
    return settings;
  }

  private Path outputDirectory() {
    return ResultsDirectory.create(out);
  }

  private void printHeader(MachineInfo machine, List<Variant> variants) {
    stdout.printf(Locale.ROOT, "compare: %d variants x %d loads x %d runs = %d measurements of %.1f s warm-up + %.1f s; about %s%n",
        variants.size(), loads.size(), timing.runs, variants.size() * loads.size() * timing.runs, timing.warmup, timing.seconds,
        ProgressLine.clock(CellProgress.estimateSeconds(timing) * variants.size() * loads.size() * timing.runs));
    stdout.printf(Locale.ROOT, "  variants: %s%n", String.join(", ", variants.stream().map(Variant::label).toList()));
    stdout.printf(Locale.ROOT, "  machine: %s%n", machine.describe());
    stdout.printf(Locale.ROOT, "  %d-byte values, random 8-byte keys from %,d%s, WAL %s%s; pipeline variants keep %d commits in flight per worker%s%n",
        options.workload.valueSize, options.workload.keySpace, readFirst ? ", each commit reads its keys first" : "",
        options.commitlane.wal ? "on" : "off", options.commitlane.log ? ", commitlane commits write the transaction log" : "", concurrency,
        variants.stream().anyMatch(v -> v.kind() == Variant.Kind.RAW_OPTIMISTIC_ASYNC)
            ? ", and so does optimistic-async, committing on a pool of " + peerCommitThreads + " threads" : "");
  }

  private void report(CompareResults results, MachineInfo machine, ZonedDateTime started, Path outDir) throws IOException {
    CompareReport report = new CompareReport(results, command(), machine, started, settingsJson());
    String section = report.markdownSection();
    stdout.println();
    stdout.print(report.tables());
    Files.writeString(outDir.resolve("compare.md"), section, StandardCharsets.UTF_8);
    Files.writeString(outDir.resolve("compare.json"), report.json(), StandardCharsets.UTF_8);
    List<Path> charts = ChartWriter.write(results, outDir);
    if (markdownOut != null) {
      Path parent = markdownOut.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(markdownOut, section, StandardCharsets.UTF_8);
    }
    stdout.println();
    stdout.println("results" + (results.partial() ? " (partial)" : "") + ": " + outDir.toAbsolutePath());
    stdout.println("  compare.md, compare.json" + (charts.isEmpty() ? " (no charts: nothing was measured)"
        : ", " + String.join(", ", charts.stream().map(p -> p.getFileName().toString()).toList())));
    if (markdownOut != null) {
      stdout.println("  README section: " + markdownOut.toAbsolutePath());
    }
  }

  /** The command as typed (./commitlane compare ...), for the report. */
  private String command() {
    return TypedCommand.of(spec);
  }

  private Map<String, Object> settingsJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("runs", timing.runs);
    m.put("warmupSeconds", timing.warmup);
    m.put("seconds", timing.seconds);
    m.put("valueSize", options.workload.valueSize);
    m.put("keySpace", options.workload.keySpace);
    m.put("concurrency", concurrency);
    m.put("readFirst", readFirst);
    m.put("peerCommitThreads", peerCommitThreads);
    m.put("wal", options.commitlane.wal);
    m.put("log", options.commitlane.log);
    m.put("commitlaneOverrides", options.commitlane.overrides().asMap());
    return m;
  }
}
