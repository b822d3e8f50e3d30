package io.commitlane.bench;

import io.commitlane.storage.CommitHook;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.PendingCommit;
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
 * Log-bearing commits/s: serialized against leaderless transaction-log appends, with N committer
 * threads each running one-key transactions whose record is appended under the commit's locks
 * (what the actors' log hook does: append before the RocksDB write, finish after it, wait for the
 * fsync under FSYNC), plus RocksDB-WAL-on variants without a transaction log (default WAL; manual
 * flush with the group syncer acking after sync; manual flush with a 10 ms periodic sync). Process
 * CPU per commit is measured around each trial. Variants are rotated within every cell.
 */
@Command(name = "logappend", mixinStandardHelpOptions = true,
    description = "Serialized vs leaderless transaction-log appends (and RocksDB WAL-on variants): commits/s and CPU per commit.")
final class LogAppendBench implements Callable<Integer> {
  @Option(names = "--committers", split = ",", defaultValue = "1,2,4,8", description = "Committer threads (list). Default: ${DEFAULT-VALUE}")
  List<Integer> committers;

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
    sizes.forEach(s -> Checks.range("--record-sizes", s, 1, 1 << 20));
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-logappend-bench");
    StringBuilder table = new StringBuilder("| durability | committers | record | variant | commits/s median [range] | x serialized | CPU µs/commit |\n"
        + "|---|---|---|---|---|---|---|\n");
    int cell = 0;
    for (String d : durabilities) {
      boolean fsync = switch (d) {
        case "process" -> false;
        case "fsync" -> true;
        default -> throw Checks.usage("--durability: '" + d + "' is not process or fsync");
      };
      List<Variant> variants = new ArrayList<>();
      variants.add(new Variant("serialized", fsync, AppendMode.SERIALIZED, null));
      variants.add(new Variant("leaderless", fsync, AppendMode.LEADERLESS, null));
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
        for (int c : committers) {
          Map<String, List<Result>> byVariant = new LinkedHashMap<>();
          variants.forEach(v -> byVariant.put(v.name(), new ArrayList<>()));
          for (int r = 0; r < runs; r++) {
            for (int i = 0; i < variants.size(); i++) {
              Variant v = variants.get((i + r) % variants.size());
              if (!v.logged() && size != sizes.get(0)) {
                continue; // the WAL variants carry no log record: one record size is enough
              }
              Result m = trial(v, c, size, root.resolve("cell-" + cell++));
              byVariant.get(v.name()).add(m);
              System.out.printf(Locale.ROOT, "  %s %d committers %5d B run %d  %-48s %10s commits/s  %7.1f CPU us/commit%n", d, c, size,
                  r + 1, v.name(), Units.count(m.commitsPerSecond()), m.cpuMicrosPerCommit());
            }
          }
          double serialized = Spread.of(rates(byVariant.get("serialized"))).median();
          for (var e : byVariant.entrySet()) {
            if (e.getValue().isEmpty()) {
              continue;
            }
            Spread rate = Spread.of(rates(e.getValue()));
            double cpu = Spread.of(e.getValue().stream().map(Result::cpuMicrosPerCommit).toList()).median();
            table.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %.1f |%n", d, c,
                e.getKey().startsWith("wal") ? "-" : size + " B", e.getKey(), rate.format(), Units.ratio(rate.median() / serialized), cpu));
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

  /** The actors' log hook, reduced to what a commit does with its log. */
  private static final class LogHook implements CommitHook {
    private final TransactionLog log;
    private final Database db;
    private final List<ByteBuffer> noEntries = List.of();

    LogHook(TransactionLog log, Database db) {
      this.log = log;
      this.db = db;
    }

    @Override
    public void beforeWrite(PendingCommit c) {
      List<ByteBuffer> entries = new ArrayList<>(1);
      for (byte[] e : c.logEntries()) {
        entries.add(ByteBuffer.wrap(e));
      }
      c.attach(log.append(c.transactionId(), System.currentTimeMillis(), entries.isEmpty() ? noEntries : entries, null));
    }

    @Override
    public void afterWrite(PendingCommit c) {
      log.finish((Long) c.attachment(), db::latestSequenceNumber);
    }

    @Override
    public void aborted(PendingCommit c, Throwable cause) {
      log.abort((Long) c.attachment());
    }
  }

  private Result trial(Variant v, int threads, int recordBytes, Path where) throws Exception {
    DatabaseOptions options = DatabaseOptions.defaults().withWal(!v.logged());
    if (!v.logged()) {
      options = options.withSettings(CommitlaneSettings.defaults().withRocksDbWal(v.wal()));
    }
    Database db = Database.open(where.resolve("db"), options);
    TransactionLog log = null;
    Database.Registration hook = null;
    try {
      if (v.logged()) {
        log = TransactionLog.open(where.resolve("txlog"), LogSettings.builder().appendMode(v.mode())
            .durability(v.fsync() ? Durability.FSYNC : Durability.PROCESS).build());
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
              txn.put(key(id, i++ & 0xFFFF), value);
              if (theLog != null) {
                txn.useLog("bench").addLogEntry(record);
              }
              io.commitlane.storage.CommitResult r;
              try {
                r = txn.commitSync();
              } catch (io.commitlane.storage.ConflictException bucketCollision) {
                continue; // distinct keys can share a version bucket: a false conflict, not a commit
              }
              if (theLog != null && v.fsync()) {
                theLog.awaitDurable(positionOf(r));
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

  private static long positionOf(io.commitlane.storage.CommitResult r) {
    return (Long) r.attachment();
  }

  private static byte[] key(int thread, long i) {
    return ByteBuffer.allocate(12).putInt(thread).putLong(i).array();
  }
}
