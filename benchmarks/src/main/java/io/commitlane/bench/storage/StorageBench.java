package io.commitlane.bench.storage;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.cli.WorkloadOptions;
import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.peers.RawOptimisticVariant;
import io.commitlane.bench.peers.RawWriteBatchVariant;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.OccValidation;
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
import picocli.CommandLine.Option;

/**
 * Storage-level commit throughput: commitlane's {@code commitSync()} against raw rocksdbjni
 * (optimistic transactions, and plain batched writes as the no-validation ceiling), one process,
 * one run, variants rotated per round, fresh database per measurement, WAL off.
 */
@Command(name = "storage", mixinStandardHelpOptions = true,
    description = "Commit throughput of commitlane commitSync() against raw rocksdbjni peers (WAL off).")
public final class StorageBench implements Callable<Integer> {
  @Option(names = "--threads", split = ",", defaultValue = "1,2", description = "Committing threads (list). Default: ${DEFAULT-VALUE}")
  List<Integer> threads;

  @Option(names = "--keys", split = ",", defaultValue = "1,64,1000", description = "Keys per transaction (list). Default: ${DEFAULT-VALUE}")
  List<Integer> keys;

  @Mixin
  TimingOptions timing = new TimingOptions(3, 1, 2);

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Option(names = "--variants", split = ",", defaultValue = "commitlane,commitlane-serial,optimistic,write-batch",
      description = "Variants: commitlane, commitlane-serial, commitlane-1m (2^20 buckets), commitlane-ordered (blind writes ordered), commitlane-listener (a no-op stage listener installed), commitlane-store (into a named store: each commit claims it), optimistic, write-batch. Default: ${DEFAULT-VALUE}")
  List<String> variantNames;

  @Mixin
  DirOption dir = new DirOption();

  @Override
  public Integer call() throws Exception {
    validate();
    List<CommitVariant> variants = new ArrayList<>();
    for (String v : variantNames) {
      variants.add(variant(v));
    }
    Path root = dir.root("commitlane-bench");
    int runs = timing.runs;
    PrintStream out = System.out;
    out.printf(Locale.ROOT, "storage bench: %s, %d runs x (%.1fs warm-up + %.1fs), %d-byte values, %,d keys, WAL off, %d cores, Java %s%n",
        variants.stream().map(CommitVariant::name).toList(), runs, timing.warmup, timing.seconds, workload.valueSize, workload.keySpace,
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    ContentionRunner runner = new ContentionRunner(workload.keySpace, workload.valueSize, timing.warmup, timing.seconds);
    Map<Load, Map<String, List<Measurement>>> results = new LinkedHashMap<>();
    int cell = 0;
    for (int t : threads) {
      for (int k : keys) {
        Load load = new Load(t, k);
        Map<String, List<Measurement>> byVariant = new LinkedHashMap<>();
        variants.forEach(v -> byVariant.put(v.name(), new ArrayList<>()));
        for (int r = 0; r < runs; r++) {
          for (int i = 0; i < variants.size(); i++) {
            CommitVariant v = variants.get((i + r) % variants.size());
            Measurement m = runner.run(v, load, root.resolve("cell-" + (cell++)));
            byVariant.get(v.name()).add(m);
            out.printf(Locale.ROOT, "  %-20s run %d  %-32s %10s commits/s  conflicts %6s  p50 %7s us%n", load, r + 1, v.name(),
                Units.count(m.commitsPerSecond()), Units.percent(m.conflictRate()), Units.micros(m.p50Nanos()));
          }
        }
        results.put(load, byVariant);
      }
    }
    dir.cleanUp(root);
    out.println();
    out.print(table(results));
    return 0;
  }

  static String table(Map<Load, Map<String, List<Measurement>>> results) {
    MarkdownTable t = MarkdownTable.of("load", "variant", "commits/s median [range]", "x raw optimistic", "x raw write",
        "conflicts", "p50 µs", "p99 µs");
    for (var e : results.entrySet()) {
      Map<String, List<Measurement>> byVariant = e.getValue();
      double optimistic = median(byVariant.get(new RawOptimisticVariant().name()));
      double write = median(byVariant.get(new RawWriteBatchVariant().name()));
      for (var v : byVariant.entrySet()) {
        List<Measurement> ms = v.getValue();
        Spread rate = Spread.of(ms.stream().map(Measurement::commitsPerSecond).toList());
        t.row(e.getKey(), v.getKey(), rate.format(),
            Units.ratio(rate.median() / optimistic),
            Units.ratio(rate.median() / write),
            Units.percent(Spread.of(ms.stream().map(Measurement::conflictRate).toList()).median()),
            Units.micros(Spread.of(ms.stream().map(Measurement::p50Nanos).toList()).median()),
            Units.micros(Spread.of(ms.stream().map(Measurement::p99Nanos).toList()).median()));
      }
    }
    return t.toString();
  }

  private static double median(List<Measurement> ms) {
    return ms == null ? Double.NaN : Spread.of(ms.stream().map(Measurement::commitsPerSecond).toList()).median();
  }

  static CommitVariant variant(String name) {
    CommitlaneSettings d = CommitlaneSettings.defaults();
    return switch (name) {
      case "commitlane" -> new CommitlaneSyncVariant("commitlane commitSync", d);
      case "commitlane-serial" -> new CommitlaneSyncVariant("commitlane commitSync serial", d.withOccValidation(OccValidation.SERIAL));
      case "commitlane-1m" -> new CommitlaneSyncVariant("commitlane commitSync 2^20 buckets", d.withOccLockBuckets(1 << 20));
      case "commitlane-listener" -> new CommitlaneSyncVariant("commitlane commitSync, no-op stage listener", d, true);
      case "commitlane-ordered" -> new CommitlaneSyncVariant("commitlane commitSync, blind writes ordered",
          d.withOccBlindWrites(io.commitlane.storage.BlindWrites.ORDERED));
      case "commitlane-store" -> new CommitlaneSyncVariant("commitlane commitSync, named store", d, false, "bench");
      case "optimistic" -> new RawOptimisticVariant();
      case "write-batch" -> new RawWriteBatchVariant();
      default -> throw Checks.usage(
          "--variants: unknown variant '" + name + "'; known: commitlane, commitlane-serial, commitlane-1m, commitlane-ordered, commitlane-listener, commitlane-store, optimistic, write-batch");
    };
  }

  private void validate() {
    timing.validate();
    workload.validate();
    threads.forEach(t -> Checks.range("--threads", t, 1, 256));
    keys.forEach(k -> Checks.range("--keys", k, 1, 1_000_000));
  }
}
