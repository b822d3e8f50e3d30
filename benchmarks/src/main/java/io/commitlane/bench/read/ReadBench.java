package io.commitlane.bench.read;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.DirOption;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.BenchTransactions;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The read side: point gets (random and sequential keys, one and four threads), a multi-get of 64
 * keys against a loop of 64 gets, ranges of 50 and 1,000 entries and a full scan, on the same
 * preloaded data set in every peer (commitlane, raw rocksdbjni, LMDB), peers rotated per round.
 */
@Command(name = "reads", mixinStandardHelpOptions = true,
    description = "Read throughput of commitlane against raw rocksdbjni and LMDB on the same preloaded data.")
public final class ReadBench implements Callable<Integer> {
  @Option(names = "--keys", defaultValue = "1000000", description = "Entries loaded into every peer. Default: ${DEFAULT-VALUE}")
  int keys;

  @Option(names = "--value-size", defaultValue = "100", description = "Bytes per value. Default: ${DEFAULT-VALUE}")
  int valueSize;

  @Option(names = "--rows", split = ",", description = "Rows to run (default: all): ${COMPLETION-CANDIDATES}",
      completionCandidates = RowIds.class)
  List<String> rowIds;

  @Option(names = "--peers", split = ",", defaultValue = "commitlane,protocol,stream,rocksdb,lmdb",
      description = "Peers: commitlane (storage reads), protocol (the actor protocol's Get, MultiGet and Scan pages),"
          + " stream (RangeSource, ranges only), rocksdb, lmdb. Default: ${DEFAULT-VALUE}")
  List<String> peerNames;

  @Option(names = "--mixed", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Also run the mixed workload that measures phantom protection (80% read-modify-write, 20% scan 50"
          + " then write one key; scans tracked, untracked, and tracked on disjoint quarters). Default: ${DEFAULT-VALUE}")
  boolean mixed;

  @Mixin
  TimingOptions timing = new TimingOptions(3, 0.5, 2);

  @Mixin
  DirOption dir = new DirOption();

  static final class RowIds extends ArrayList<String> {
    RowIds() {
      super(ReadRow.ids());
    }
  }

  @Override
  public Integer call() throws Exception {
    timing.validate();
    Checks.range("--keys", keys, 1_000, 100_000_000);
    Checks.range("--value-size", valueSize, 1, 1 << 20);
    List<ReadRow> rows = rowIds == null ? List.of(ReadRow.values()) : rowIds.stream().map(ReadRow::byId).toList();
    List<ReadPeer> peers = peerNames.stream().map(ReadBench::peer).toList();
    PrintStream out = System.out;
    out.printf(Locale.ROOT, "reads bench: %s, %,d keys of 8 B, %d-byte values, %d runs x (%.1fs warm-up + %.1fs), %d cores, Java %s%n",
        peers.stream().map(ReadPeer::name).toList(), keys, valueSize, timing.runs, timing.warmup, timing.seconds,
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    Path root = dir.root("commitlane-reads");
    byte[] value = BenchTransactions.randomValue(new SplittableRandom(7), valueSize);
    Map<ReadPeer, ReadPeer.Loaded> loaded = new LinkedHashMap<>();
    Map<ReadRow, Map<String, List<Double>>> results = new LinkedHashMap<>();
    try {
      for (ReadPeer p : peers) {
        long t0 = System.nanoTime();
        loaded.put(p, p.load(root.resolve(p.name().replaceAll("[^a-z]", "")), keys, value));
        out.printf(Locale.ROOT, "  loaded %-20s in %.1f s%n", p.name(), (System.nanoTime() - t0) / 1e9);
      }
      for (ReadRow row : rows) {
        Map<String, List<Double>> byPeer = new LinkedHashMap<>();
        List<ReadPeer> running = peers.stream().filter(p -> p.supports(row) && (row.writers == 0 || p.writes())).toList();
        running.forEach(p -> byPeer.put(p.name(), new ArrayList<>()));
        for (int r = 0; r < timing.runs; r++) {
          for (int i = 0; i < running.size(); i++) {
            ReadPeer p = running.get((i + r) % running.size());
            double opsPerSecond = measure(row, loaded.get(p));
            byPeer.get(p.name()).add(opsPerSecond);
            out.printf(Locale.ROOT, "  %-18s run %d  %-20s %10s ops/s%n", row.id, r + 1, p.name(), Units.count(opsPerSecond));
          }
        }
        results.put(row, byPeer);
      }
    } finally {
      for (ReadPeer.Loaded l : loaded.values()) {
        l.close();
      }
      dir.cleanUp(root);
    }
    out.println();
    out.print(table(results));
    if (mixed) {
      out.println();
      out.print(mixedTable(runMixed(value, out)));
    }
    return 0;
  }

  private Map<MixedScanWorkload.Variant, List<MixedScanWorkload.Result>> runMixed(byte[] value, PrintStream out)
      throws Exception {
    MixedScanWorkload workload = new MixedScanWorkload(keys, value);
    MixedScanWorkload.Variant[] variants = MixedScanWorkload.Variant.values();
    Map<MixedScanWorkload.Variant, List<MixedScanWorkload.Result>> results = new LinkedHashMap<>();
    for (MixedScanWorkload.Variant v : variants) {
      results.put(v, new ArrayList<>());
    }
    Path root = dir.root("commitlane-mixed");
    try {
      int cell = 0;
      for (int r = 0; r < timing.runs; r++) {
        for (int i = 0; i < variants.length; i++) {
          MixedScanWorkload.Variant v = variants[(i + r) % variants.length];
          MixedScanWorkload.Result m = workload.run(v, root.resolve("mixed-" + (cell++)), timing.warmup, timing.seconds);
          results.get(v).add(m);
          out.printf(Locale.ROOT, "  mixed run %d  %-34s %10s commits/s  conflicts %6s%n", r + 1, v.label,
              Units.count(m.commitsPerSecond()), Units.percent(m.conflictRate()));
        }
      }
    } finally {
      dir.cleanUp(root);
    }
    return results;
  }

  private static String mixedTable(Map<MixedScanWorkload.Variant, List<MixedScanWorkload.Result>> results) {
    MarkdownTable t = MarkdownTable.of("mixed workload, " + MixedScanWorkload.THREADS + " threads, commitSync",
        "commits/s median [range]", "x untracked", "conflicts");
    double untracked = Spread.of(results.get(MixedScanWorkload.Variant.UNTRACKED).stream()
        .map(MixedScanWorkload.Result::commitsPerSecond).toList()).median();
    for (var e : results.entrySet()) {
      Spread rate = Spread.of(e.getValue().stream().map(MixedScanWorkload.Result::commitsPerSecond).toList());
      Spread conflicts = Spread.of(e.getValue().stream().map(MixedScanWorkload.Result::conflictRate).toList());
      t.row(e.getKey().label, rate.format(), Units.ratio(rate.median() / untracked),
          Units.percent(conflicts.median()) + " [" + Units.percent(conflicts.min()) + "-" + Units.percent(conflicts.max()) + "]");
    }
    return t.toString();
  }

  private double measure(ReadRow row, ReadPeer.Loaded store) throws Exception {
    AtomicLongArray ops = new AtomicLongArray(row.threads * 16); // one padded slot per thread
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ready = new CountDownLatch(row.threads);
    Running running = new Running();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < row.threads; t++) {
      int slot = t * 16;
      ReadPeer.Reader reader = store.reader();
      ReadRow.Cursor cursor = new ReadRow.Cursor(0x5EED + t, (long) t * keys / row.threads);
      threads.add(new Thread(() -> {
        ready.countDown();
        try (reader) {
          long read = 0;
          while (running.on) {
            read += row.read(reader, cursor, keys);
            ops.lazySet(slot, ops.get(slot) + 1);
          }
          if (read == 0) {
            throw new IllegalStateException(row.id + " read nothing");
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "reads-" + row.id + "-" + t));
    }
    for (int w = 0; w < row.writers; w++) {
      ReadPeer.Writer writer = store.writer();
      SplittableRandom random = new SplittableRandom(0xC0DE + w);
      byte[] value = BenchTransactions.randomValue(random, valueSize);
      threads.add(new Thread(() -> {
        try (writer) {
          while (running.on) {
            writer.put(ReadKeys.key(random.nextInt(keys)), value);
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "reads-" + row.id + "-writer-" + w));
    }
    threads.forEach(Thread::start);
    try {
      ready.await();
      ContentionRunner.pause(timing.warmup);
      long before = total(ops);
      long t0 = System.nanoTime();
      ContentionRunner.pause(timing.seconds);
      long after = total(ops);
      double elapsed = (System.nanoTime() - t0) / 1e9;
      return (after - before) / elapsed;
    } finally {
      running.on = false;
      for (Thread t : threads) {
        t.join();
      }
      if (!errors.isEmpty()) {
        throw new IllegalStateException(row.id + " failed", errors.get(0));
      }
    }
  }

  private static long total(AtomicLongArray ops) {
    long n = 0;
    for (int i = 0; i < ops.length(); i += 16) {
      n += ops.get(i);
    }
    return n;
  }

  private String table(Map<ReadRow, Map<String, List<Double>>> results) {
    MarkdownTable t = MarkdownTable.of("row", "peer", "ops/s median [range]", "entries/s", "x raw rocksdbjni");
    for (var e : results.entrySet()) {
      ReadRow row = e.getKey();
      List<Double> rawRuns = e.getValue().get(new RawRocksReadPeer().name());
      double raw = rawRuns == null ? Double.NaN : Spread.of(rawRuns).median();
      for (var p : e.getValue().entrySet()) {
        Spread s = Spread.of(p.getValue());
        t.row(row.description, p.getKey(), s.format(), Units.count(s.median() * row.entriesPerOp(keys)),
            Units.ratio(s.median() / raw));
      }
    }
    return t.toString();
  }

  private static ReadPeer peer(String name) {
    return switch (name) {
      case "commitlane" -> new CommitlaneReadPeer();
      case "protocol" -> new CommitlaneProtocolReadPeer(false);
      case "stream" -> new CommitlaneProtocolReadPeer(true);
      case "rocksdb" -> new RawRocksReadPeer();
      case "lmdb" -> new LmdbReadPeer();
      default -> throw Checks.usage("--peers: unknown peer '" + name + "'; known: commitlane, protocol, stream, rocksdb, lmdb");
    };
  }

  private static final class Running {
    volatile boolean on = true;
  }
}
