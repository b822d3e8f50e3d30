package io.commitlane.bench.memory;

import io.commitlane.actors.PipelineMode;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.WorkloadOptions;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.pipeline.PipelineBench;
import io.commitlane.bench.pipeline.PipelineReport;
import io.commitlane.bench.pipeline.PipelineTrials;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Memory of N empty open databases, each kind measured in fresh JVMs, rotated, median of runs; then
 * the peak of what validation holds (version table and recent-writes record) in one busy database.
 */
@Command(name = "memory", mixinStandardHelpOptions = true,
    description = "Memory taken by N empty open databases: commitlane (default and 2^20 buckets) against raw rocksdbjni; "
        + "then the peak of commitlane's validation structures in a busy database (--busy).")
public final class MemoryBench implements Callable<Integer> {
  private static final List<String> KINDS = List.of("commitlane", "commitlane-1m", "optimistic", "plain");

  @Option(names = "--databases", defaultValue = "10", description = "Databases opened per JVM. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--written", description = "Instead of empty databases: databases that each wrote 8 MiB (4 MiB flushed and read"
      + " back, 4 MiB in memtables), with the shared block cache (commitlane.rocksdb defaults) against"
      + " RocksDB's per-store caches (block-cache-size = 0)")
  boolean written;

  @Option(names = "--runs", defaultValue = "3", description = "Fresh JVMs per kind, and busy runs. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--busy", defaultValue = "4x64",
      description = "The busy database's load, WORKERSxKEYS through the pipeline (--concurrency in flight each, the build's settings), "
          + "or 'off'. Default: ${DEFAULT-VALUE}")
  String busy;

  @Option(names = "--busy-seconds", defaultValue = "5", description = "How long each busy run commits. Default: ${DEFAULT-VALUE}")
  double busySeconds;

  @Option(names = "--concurrency", defaultValue = "8", description = "Commits each busy worker keeps in flight. Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--read-first", description = "Busy commits read their keys (tracked) before writing them, so the record of recent "
      + "writes holds what their baselines need. Without it they write blindly and hold no baseline.")
  boolean readFirst;

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Override
  public Integer call() throws Exception {
    Checks.range("--databases", databases, 1, 1000);
    Checks.positive("--runs", runs);
    Checks.positive("--busy-seconds", busySeconds);
    Checks.range("--concurrency", concurrency, 1, 4096);
    workload.validate();
    Load busyLoad = "off".equalsIgnoreCase(busy.trim()) ? null : parseBusyLoad();
    Map<String, List<Double>> totals = new LinkedHashMap<>();
    List<String> kinds = written ? List.of("shared", "private") : KINDS;
    kinds.forEach(k -> totals.put(k, new ArrayList<>()));
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < kinds.size(); i++) {
        String kind = kinds.get((i + r) % kinds.size());
        double bytes = probe(kind, databases);
        totals.get(kind).add(bytes);
        System.out.printf(Locale.ROOT, "  run %d %-14s %s%n", r + 1, kind, Units.mib(bytes));
      }
    }
    MarkdownTable table = MarkdownTable.of(databases + " " + (written ? "written (8 MiB each)" : "empty") + " databases",
        "memory (anonymous RSS + live heap) median [range]");
    for (var e : totals.entrySet()) {
      Spread s = Spread.of(e.getValue());
      table.row(label(e.getKey()), Units.mib(s.median()) + " [" + Units.mib(s.min()) + "-" + Units.mib(s.max()) + "]");
    }
    System.out.print("\n" + table);
    if (busyLoad != null && !written) {
      busy(busyLoad);
    }
    return 0;
  }

  private Load parseBusyLoad() {
    try {
      return new PipelineBench.LoadConverter().convert(busy);
    } catch (RuntimeException e) {
      throw Checks.usage("--busy: '" + busy + "' is not WORKERSxKEYS (e.g. 4x64) or off");
    }
  }

  /** The peak of validation's structures in one busy database, once per run. */
  private void busy(Load load) throws Exception {
    ActorSystem<Void> system = BenchSystem.start("memory", BenchSystem.config());
    PipelineSettings settings = PipelineTrials.settings(system, PipelineMode.THREADS, false);
    List<Double> peaks = new ArrayList<>();
    List<Double> slots = new ArrayList<>();
    Path root = Files.createTempDirectory("commitlane-busy");
    try {
      for (int r = 0; r < runs; r++) {
        BusyValidationMemory.Peak p = BusyValidationMemory.measure(system, settings, load, concurrency, readFirst, busySeconds,
            workload.keySpace, workload.valueSize, root.resolve("run-" + r));
        peaks.add((double) p.validationBytes());
        slots.add((double) p.recentWriteSlots());
        System.out.printf(Locale.ROOT, "  busy run %d  %s: validation peak %s (recent-writes record %,d slots), %,d commits%n", r + 1,
            PipelineReport.label(load), Units.mib(p.validationBytes()), p.recentWriteSlots(), p.commits());
      }
    } finally {
      BenchSystem.stop(system);
      ContentionRunner.deleteRecursively(root);
    }
    Spread s = Spread.of(peaks);
    System.out.print("\n" + MarkdownTable.of(
            String.format(Locale.ROOT, "busy database, %s%s, %d in flight each, %,d buckets", PipelineReport.label(load),
                readFirst ? " read first" : " blind", concurrency, settings.storage().occLockBuckets()),
            "validation structures, peak, median [range]", "recent-writes slots (16 B each)")
        .row("commitlane threads", Units.mib(s.median()) + " [" + Units.mib(s.min()) + "-" + Units.mib(s.max()) + "]",
            String.format(Locale.ROOT, "%,.0f", Spread.of(slots).median())));
  }

  private static String label(String kind) {
    return switch (kind) {
      case "commitlane" -> "commitlane, 65,536 buckets (default)";
      case "commitlane-1m" -> "commitlane, 2^20 buckets";
      case "shared" -> "commitlane, one shared 256 MiB block cache (default)";
      case "private" -> "commitlane, RocksDB's per-store caches, no memtable bound";
      case "optimistic" -> "raw OptimisticTransactionDB";
      default -> "raw plain RocksDB";
    };
  }

  /** Memory taken by {@code databases} empty open databases of {@code kind}, measured in a fresh JVM. */
  public static double probe(String kind, int databases) throws Exception {
    Path dir = Files.createTempDirectory("commitlane-memory");
    try {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p = new ProcessBuilder(java, "-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch", "-cp", System.getProperty("java.class.path"),
          MemoryProbe.class.getName(), kind, dir.toString(), Integer.toString(databases))
          .redirectErrorStream(true).start();
      String result = null;
      StringBuilder all = new StringBuilder();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          all.append(line).append('\n');
          if (line.startsWith("anon=")) {
            result = line;
          }
        }
      }
      if (p.waitFor() != 0 || result == null) {
        throw new IllegalStateException("memory probe for " + kind + " failed:\n" + all);
      }
      String[] parts = result.split(" ");
      return Long.parseLong(parts[0].substring(5)) + Math.max(0, Long.parseLong(parts[1].substring(5)));
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }
}
