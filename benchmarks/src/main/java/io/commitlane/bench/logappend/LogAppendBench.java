package io.commitlane.bench.logappend;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.pipeline.PipelineBench;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.internal.commit.LogRecordRef;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.AppendMode;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Log-bearing commits/s: serialized, leaderless and actor transaction-log appends, with N committer
 * threads each running transactions of K keys whose record is appended under the commit's locks
 * (what the actors' log hook does: append before the RocksDB write, finish after it, wait for the
 * fsync under FSYNC; in actor mode the finish is queued for the log's writer and the committer
 * waits for the acknowledgement it completes), plus RocksDB-WAL-on variants without a transaction
 * log (default WAL; manual flush with the group syncer acking after sync; manual flush with a 10 ms
 * periodic sync). Process CPU per commit is measured around each trial. Variants are rotated
 * within every cell.
 */
@Command(name = "logappend", mixinStandardHelpOptions = true,
    description = "Serialized, leaderless and actor transaction-log appends (and RocksDB WAL-on variants): commits/s and CPU per commit.")
public final class LogAppendBench implements Callable<Integer> {
  @Option(names = "--committers", split = ",", defaultValue = "1,2,4,8", description = "Committer threads (list). Default: ${DEFAULT-VALUE}")
  List<Integer> committers;

  @Option(names = "--keys", split = ",", defaultValue = "1",
      description = "Keys per transaction (list); each is measured at every --committers count. Default: ${DEFAULT-VALUE}")
  List<Integer> keysPerCommit;

  @Option(names = "--loads", split = ",", converter = PipelineBench.LoadConverter.class,
      description = "Instead of --committers x --keys: the exact loads, COMMITTERSxKEYS (list), e.g. 1x1,2x1,4x1,8x1,4x64")
  List<Load> loads;

  @Option(names = "--appends", split = ",", defaultValue = "serialized,leaderless,actor",
      description = "Append modes to compare (list): serialized, leaderless, actor. Default: ${DEFAULT-VALUE}")
  List<String> appends;

  @Option(names = "--record-sizes", split = ",", defaultValue = "100,1024", description = "Log entry bytes (list). Default: ${DEFAULT-VALUE}")
  List<Integer> sizes;

  @Option(names = "--durability", split = ",", defaultValue = "process,fsync", description = "process and/or fsync. Default: ${DEFAULT-VALUE}")
  List<String> durabilities;

  @Option(names = "--skip-wal-variants", description = "Measure only the transaction-log variants (not the RocksDB WAL-on ones).")
  boolean skipWalVariants;

  @Option(names = "--runs", defaultValue = "3", description = "Rounds, variants rotated. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--warmup", defaultValue = "0.3", description = "Warm-up seconds per trial. Default: ${DEFAULT-VALUE}")
  double warmup;

  @Option(names = "--seconds", defaultValue = "1", description = "Measured seconds per trial. Default: ${DEFAULT-VALUE}")
  double seconds;

  @Option(names = "--dir", description = "Directory for the databases (default: a temporary directory)")
  Path dir;

  /** One way of committing: opens its database (and log) in a directory. */
  private record Variant(String name, boolean fsync, AppendMode mode, RocksDbWal wal) {
    boolean logged() {
      return mode != null;
    }
  }

  private record Result(double commitsPerSecond, double cpuMicrosPerCommit) {}

  @Override
  public Integer call() throws Exception {
    Checks.positive("--runs", runs);
    Checks.positive("--seconds", seconds);
    Checks.nonNegative("--warmup", warmup);
    committers.forEach(c -> Checks.range("--committers", c, 1, 256));
    keysPerCommit.forEach(k -> Checks.range("--keys", k, 1, 65_536));
    sizes.forEach(s -> Checks.range("--record-sizes", s, 1, 1 << 20));
    List<Load> cells = new ArrayList<>();
    if (loads != null && !loads.isEmpty()) {
      for (Load l : loads) {
        Checks.range("--loads committers", l.threads(), 1, 256);
        Checks.range("--loads keys", l.keys(), 1, 65_536);
        cells.add(l);
      }
    } else {
      for (int k : keysPerCommit) {
        for (int c : committers) {
          cells.add(new Load(c, k));
        }
      }
    }
    List<AppendMode> modes = new ArrayList<>();
    for (String a : appends) {
      modes.add(switch (a.trim().toLowerCase(Locale.ROOT)) {
        case "serialized" -> AppendMode.SERIALIZED;
        case "leaderless" -> AppendMode.LEADERLESS;
        case "actor" -> AppendMode.ACTOR;
        default -> throw Checks.usage("--appends: '" + a + "' is not serialized, leaderless or actor");
      });
    }
    if (modes.isEmpty()) {
      throw Checks.usage("--appends: name at least one append mode");
    }
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-logappend-bench");
    String baseline = name(modes.get(0));
    MarkdownTable table = MarkdownTable.of("durability", "committers x keys", "record", "variant", "commits/s median [range]",
        "x " + baseline, "x best other", "CPU µs/commit");
    int cell = 0;
    for (String d : durabilities) {
      boolean fsync = Checks.fsyncDurability("--durability", d);
      List<Variant> variants = new ArrayList<>();
      for (AppendMode m : modes) {
        variants.add(new Variant(name(m), fsync, m, null));
      }
      if (!skipWalVariants) {
        if (fsync) {
          variants.add(new Variant("wal: manual flush + group syncer, ack after sync", true, null,
              new RocksDbWal(true, Duration.ZERO, true, false, false, false)));
        } else {
          variants.add(new Variant("wal: default (write per commit)", false, null, RocksDbWal.defaults()));
          variants.add(new Variant("wal: manual flush + 10 ms group sync", false, null,
              new RocksDbWal(true, Duration.ofMillis(10), false, false, false, false)));
        }
      }
      for (int size : sizes) {
        for (Load load : cells) {
          int c = load.threads();
          int keys = load.keys();
          Map<String, List<Result>> byVariant = new LinkedHashMap<>();
          variants.forEach(v -> byVariant.put(v.name(), new ArrayList<>()));
          for (int r = 0; r < runs; r++) {
            for (int i = 0; i < variants.size(); i++) {
              Variant v = variants.get((i + r) % variants.size());
              if (!v.logged() && size != sizes.get(0)) {
                continue; // the WAL variants carry no log record: one record size is enough
              }
              Result m = trial(v, c, keys, size, root.resolve("cell-" + cell++));
              byVariant.get(v.name()).add(m);
              System.out.printf(Locale.ROOT, "  %s %dx%d %5d B run %d  %-48s %10s commits/s  %7.1f CPU us/commit%n", d, c, keys,
                  size, r + 1, v.name(), Units.count(m.commitsPerSecond()), m.cpuMicrosPerCommit());
            }
          }
          double base = Spread.of(rates(byVariant.get(baseline))).median();
          for (var e : byVariant.entrySet()) {
            if (e.getValue().isEmpty()) {
              continue;
            }
            Spread rate = Spread.of(rates(e.getValue()));
            double cpu = Spread.of(e.getValue().stream().map(Result::cpuMicrosPerCommit).toList()).median();
            table.row(d, c + "x" + keys, e.getKey().startsWith("wal") ? "-" : size + " B", e.getKey(), rate.format(),
                Units.ratio(rate.median() / base), bestOther(e.getKey(), rate.median(), byVariant, modes),
                String.format(Locale.ROOT, "%.1f", cpu));
          }
        }
      }
    }
    if (dir == null) {
      ContentionRunner.deleteRecursively(root);
    }
    System.out.println();
    System.out.println("Machine: " + Runtime.getRuntime().availableProcessors() + " cores, shared with other builds; medians of "
        + runs + " rotated rounds.");
    System.out.print(table);
    return 0;
  }

  private static List<Double> rates(List<Result> results) {
    return results.stream().map(Result::commitsPerSecond).toList();
  }

  private static String name(AppendMode m) {
    return m.name().toLowerCase(Locale.ROOT);
  }

  /** This append mode's median over the best median of the other append modes ("-" for the WAL rows or a lone mode). */
  private static String bestOther(String variant, double median, Map<String, List<Result>> byVariant, List<AppendMode> modes) {
    double best = 0;
    boolean isMode = false;
    for (AppendMode m : modes) {
      if (name(m).equals(variant)) {
        isMode = true;
      } else if (!byVariant.get(name(m)).isEmpty()) {
        best = Math.max(best, Spread.of(rates(byVariant.get(name(m)))).median());
      }
    }
    return isMode && best > 0 ? Units.ratio(median / best) : "-";
  }

  /** The actors' log hook, reduced to what a commit does with its log. */
  private static final class LogHook implements CommitHook {
    private final TransactionLog log;
    private final Database db;
    private final boolean queuedFinish;
    private final List<ByteBuffer> noEntries = List.of();

    LogHook(TransactionLog log, Database db) {
      this.log = log;
      this.db = db;
      this.queuedFinish = log.settings().appendMode() == AppendMode.ACTOR;
    }

    @Override
    public boolean writesLogs() {
      return true;
    }

    @Override
    public void beforeWrite(PendingCommit c) {
      List<ByteBuffer> entries = new ArrayList<>(1);
      for (byte[] e : c.logEntries()) {
        entries.add(ByteBuffer.wrap(e));
      }
      long now = System.currentTimeMillis();
      c.attach(new LogRecordRef("bench", log.append(c.transactionId(), now, entries.isEmpty() ? noEntries : entries, null), now));
    }

    @Override
    public void afterWrite(PendingCommit c) {
      LogRecordRef r = c.logRecord();
      if (queuedFinish) {
        r.acknowledgeWhen(log.finishAsync(r.position(), db::latestSequenceNumber));
      } else {
        log.finish(r.position(), db::latestSequenceNumber);
      }
    }

    @Override
    public void aborted(PendingCommit c, Throwable cause) {
      log.abort(c.logRecord().position());
    }
  }

  private Result trial(Variant v, int threads, int keys, int recordBytes, Path where) throws Exception {
    DatabaseOptions options = DatabaseOptions.defaults().withWal(!v.logged());
    if (!v.logged()) {
      options = options.withSettings(CommitlaneSettings.defaults().withRocksDbWal(v.wal()));
    }
    Database db = Database.open(where.resolve("db"), options);
    TransactionLog log = null;
    Database.Registration hook = null;
    try {
      if (v.logged()) {
        log = TransactionLog.open(where.resolve("txlog"), LogSettings.defaults().withAppendMode(v.mode())
            .withDurability(v.fsync() ? Durability.FSYNC : Durability.PROCESS));
        hook = db.addCommitHook(new LogHook(log, db));
      }
      TransactionLog theLog = log;
      byte[] record = new byte[recordBytes];
      byte[] value = new byte[100];
      AtomicBoolean measuring = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder commits = new LongAdder();
      CyclicBarrier start = new CyclicBarrier(threads + 1);
      List<Thread> workers = new ArrayList<>();
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread w = new Thread(() -> {
          try {
            start.await();
            long i = 0;
            while (!stop.get()) {
              Transaction txn = db.begin();
              for (int k = 0; k < keys; k++) {
                txn.put(key(id, i++ & 0xFFFF), value);
              }
              if (theLog != null) {
                txn.useLog("bench").addLogEntry(record);
              }
              io.commitlane.storage.CommitResult r;
              try {
                r = txn.commitSync();
              } catch (io.commitlane.storage.ConflictException bucketCollision) {
                continue; // distinct keys can share a version bucket: a false conflict, not a commit
              }
              if (theLog != null) {
                awaitAcknowledgement(theLog, r.logRecord(), v.fsync());
              }
              if (measuring.get()) {
                commits.increment();
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        }, "logappend-" + t);
        w.start();
        workers.add(w);
      }
      start.await();
      Thread.sleep((long) (warmup * 1000)); // benchmark pacing, not test synchronization
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      measuring.set(true);
      Thread.sleep((long) (seconds * 1000));
      measuring.set(false);
      long elapsed = System.nanoTime() - t0;
      long cpu = os.getProcessCpuTime() - cpu0;
      stop.set(true);
      for (Thread w : workers) {
        w.join();
      }
      if (!failures.isEmpty()) {
        throw new IllegalStateException("a committer failed in " + v.name(), failures.get(0));
      }
      long n = commits.sum();
      return new Result(n * 1e9 / elapsed, n == 0 ? Double.NaN : cpu / 1000.0 / n);
    } finally {
      if (hook != null) {
        hook.close();
      }
      if (log != null) {
        log.close();
      }
      db.close();
    }
  }

  /** What the pipeline waits for before it acknowledges: the writer's acknowledgement, or the fsync. */
  private static void awaitAcknowledgement(TransactionLog log, LogRecordRef r, boolean fsync) {
    if (r.acknowledgement() != null) {
      r.acknowledgement().join();
    } else if (fsync) {
      log.awaitDurable(r.position());
    }
  }

  private static byte[] key(int thread, long i) {
    return ByteBuffer.allocate(12).putInt(thread).putLong(i).array();
  }
}
