package io.commitlane.bench.txlog;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.peers.LmdbAppendVariant;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import io.commitlane.txlog.Durability;
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
 * Transaction-log append throughput against LMDB (lmdbjava) storing the same entries, one record
 * (one LMDB write transaction) per commit, for process and fsync durability, in one run.
 */
@Command(name = "txlog", mixinStandardHelpOptions = true,
    description = "Transaction-log appends (append + finish, + fsync wait) against LMDB write transactions of the same entries.")
public final class TxlogBench implements Callable<Integer> {
  @Option(names = "--writers", split = ",", defaultValue = "1,4", description = "Writer threads (list). Default: ${DEFAULT-VALUE}")
  List<Integer> writers;

  @Option(names = "--entry-sizes", split = ",", defaultValue = "100,1024", description = "Entry bytes (list). Default: ${DEFAULT-VALUE}")
  List<Integer> sizes;

  @Option(names = "--durability", split = ",", defaultValue = "process,fsync", description = "process and/or fsync. Default: ${DEFAULT-VALUE}")
  List<String> durabilities;

  @Mixin
  TimingOptions timing = new TimingOptions(3, 0.5, 1.5);

  @Mixin
  DirOption dir = new DirOption();

  @Override
  public Integer call() throws Exception {
    timing.validate();
    writers.forEach(w -> Checks.range("--writers", w, 1, 256));
    sizes.forEach(s -> Checks.range("--entry-sizes", s, 1, 16 << 20));
    Path root = dir.root("commitlane-txlog-bench");
    int runs = timing.runs;
    MarkdownTable table = MarkdownTable.of("durability", "writers", "entry", "variant", "commits/s median [range]", "x LMDB",
        "p50 µs", "p99 µs");
    int cell = 0;
    for (String d : durabilities) {
      boolean fsync = Checks.fsyncDurability("--durability", d);
      List<CommitVariant> variants = List.of(new TxlogAppendVariant(fsync ? Durability.FSYNC : Durability.PROCESS), new LmdbAppendVariant(fsync));
      for (int size : sizes) {
        ContentionRunner runner = new ContentionRunner(1, size, timing.warmup, timing.seconds);
        for (int w : writers) {
          Load load = new Load(w, 1);
          Map<String, List<Measurement>> byVariant = new LinkedHashMap<>();
          variants.forEach(v -> byVariant.put(v.name(), new ArrayList<>()));
          for (int r = 0; r < runs; r++) {
            for (int i = 0; i < variants.size(); i++) {
              CommitVariant v = variants.get((i + r) % variants.size());
              Measurement m = runner.run(v, load, root.resolve("cell-" + cell++));
              byVariant.get(v.name()).add(m);
              System.out.printf(Locale.ROOT, "  %s %d writers %5d B run %d  %-26s %10s commits/s  p50 %8s us%n", d, w, size, r + 1,
                  v.name(), Units.count(m.commitsPerSecond()), Units.micros(m.p50Nanos()));
            }
          }
          double lmdb = Spread.of(byVariant.get(variants.get(1).name()).stream().map(Measurement::commitsPerSecond).toList()).median();
          for (var e : byVariant.entrySet()) {
            Spread rate = Spread.of(e.getValue().stream().map(Measurement::commitsPerSecond).toList());
            table.row(d, w, size + " B", e.getKey(), rate.format(),
                Units.ratio(rate.median() / lmdb),
                Units.micros(Spread.of(e.getValue().stream().map(Measurement::p50Nanos).toList()).median()),
                Units.micros(Spread.of(e.getValue().stream().map(Measurement::p99Nanos).toList()).median()));
          }
        }
      }
    }
    dir.cleanUp(root);
    System.out.println();
    System.out.print(table);
    return 0;
  }
}
