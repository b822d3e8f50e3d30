package io.commitlane.bench;

import com.typesafe.config.Config;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.actors.stream.KeyValue;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.Durability;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.stream.javadsl.Source;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One scenario of the upstream contention benchmark ({@code occ-commit-contention}) with
 * its knobs, measured once per run: commits/s, latency percentiles (HdrHistogram), conflicts and
 * process CPU per commit, then one JSON line for scripts.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"One contention scenario with the upstream benchmark's knobs: commits/s, latency percentiles, conflicts, CPU per commit, "
        + "and a JSON line (the last line of output) for scripts.",
        "Scenarios (defaults as in the upstream benchmark's table):",
        "  one-db      --workers async workers (default 4) and --sync-workers commitSync threads (default 0) on one database, 64 keys",
        "  four-db     4 databases, --workers per database (default 1), 1,000 keys",
        "  mixed-sync  2 async + 2 commitSync workers on one database, 64 keys; reported separately",
        "  conflict    4 async workers read-modify-write 8 counters each from 1,000 keys: real conflicts; checks no update was lost",
        "  memory      --databases empty databases (default 10), in a fresh JVM",
        "  probe       a trivial task on Pekko's default dispatcher every ms, timed while 4 async workers commit 64 keys",
        "  txlog       --workers threads (default 4) append one --value-size entry per record to a transaction log, --durability",
        "  ingest      --records records (default 200,000) through the batching ingest sink"})
final class BenchCommand implements Callable<Integer> {
  private static final List<String> SCENARIOS = List.of("one-db", "four-db", "mixed-sync", "conflict", "memory", "probe", "txlog", "ingest");

  @Option(names = "--scenario", defaultValue = "one-db", description = "one-db, four-db, mixed-sync, conflict, memory, probe, txlog, ingest. Default: ${DEFAULT-VALUE}")
  String scenario;

  @Option(names = "--workers", description = "Async workers (per database in four-db; writer threads in txlog). Default: the scenario's")
  Integer workers;

  @Option(names = "--sync-workers", description = "commitSync threads beside the async workers. Default: the scenario's")
  Integer syncWorkers;

  @Option(names = "--keys", description = "Keys per commit. Default: the scenario's")
  Integer keys;

  @Option(names = "--concurrency", defaultValue = "8", description = "Commits each async worker keeps in flight. Default: ${DEFAULT-VALUE}")
  int concurrency;

  @Option(names = "--mode", defaultValue = "threads", description = "threads, legacy, two-lane (if this build has it), leaderless, actor (log appends). Default: ${DEFAULT-VALUE}")
  String mode;

  @Option(names = "--databases", defaultValue = "10", description = "memory: empty databases to open. Default: ${DEFAULT-VALUE}")
  int databases;

  @Option(names = "--records", defaultValue = "200000", description = "ingest: records to ingest. Default: ${DEFAULT-VALUE}")
  int records;

  @Option(names = "--ingest-parallelism", defaultValue = "1", description = "ingest: sink batches in flight, 1..64. Default: ${DEFAULT-VALUE}")
  int ingestParallelism;

  @Option(names = "--queue-capacity", description = "commitlane.commit-queue-capacity, 1..10000000. Default: the build's (4096)")
  Integer queueCapacity;

  @Mixin
  ProgressOption progress = new ProgressOption();

  @Option(names = "--jfr", paramLabel = "FILE", description = "Record this process with Flight Recorder (the JDK's default settings plus "
      + "every commitlane event) and write the recording to FILE at the end; read it with: jfr print --events 'io.commitlane.*' FILE")
  Path jfr;

  @Mixin
  TimingOptions timing = new TimingOptions(1, 1, 3);

  @Mixin
  CommitRunOptions options = new CommitRunOptions();

  @Spec
  CommandSpec spec;

  private PrintStream out;

  /** The scenario's shape once defaults are filled in. */
  private record Shape(int databases, int async, int sync, int keys, int keySpace) {}

  @Override
  public Integer call() throws Exception {
    out = System.out;
    if (!SCENARIOS.contains(scenario)) {
      throw Checks.usage("--scenario: unknown scenario '" + scenario + "'; known: " + String.join(", ", SCENARIOS));
    }
    timing.validate();
    options.workload.validate();
    Checks.range("--concurrency", concurrency, 1, 10_000);
    Checks.range("--databases", databases, 1, 1000);
    Checks.range("--records", records, 1, 100_000_000);
    Shape shape = shape();
    if (jfr != null) {
      FlightRecording.check("--jfr", jfr);
    }
    if (scenario.equals("txlog") && spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--mode")) {
      throw Checks.usage("--mode: the txlog scenario appends to a TransactionLog directly; the pipeline's mode does not apply");
    }
    Config config = BenchSystem.config();
    Checks.range("--ingest-parallelism", ingestParallelism, 1, 64);
    if (queueCapacity != null) {
      Checks.range("--queue-capacity", queueCapacity, 1, 10_000_000);
    }
    PipelineSettings settings = overrides().resolve(config);
    if ((long) shape.async() * concurrency > settings.commitQueueCapacity()) {
      throw Checks.usage("--workers " + shape.async() + " x --concurrency " + concurrency + " exceed the commit queue's capacity of "
          + settings.commitQueueCapacity());
    }
    Durability durability = settings.log().durability();
    StopSignal.arm();
    Path root = options.dir.root("commitlane-bench");
    FlightRecording recording = jfr == null ? null : FlightRecording.start(jfr);
    try {
      out.println(header(shape, settings));
      out.println("  machine: " + MachineInfo.current().describe());
      List<Map<String, Object>> runs = new ArrayList<>();
      try {
        for (int r = 0; r < timing.runs; r++) {
          Path cell = root.resolve("run-" + r);
          Map<String, Object> result = switch (scenario) {
            case "memory" -> memory();
            case "txlog" -> txlog(shape, durability, cell);
            default -> pipeline(shape, settings, config, cell);
          };
          runs.add(result);
          out.println("run " + (r + 1) + ": " + result.get("summary"));
        }
      } catch (StopSignal.StoppedException e) {
        out.println("stopped (Ctrl-C) after " + runs.size() + " of " + timing.runs + " runs");
      }
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("scenario", scenario);
      json.put("partial", runs.size() < timing.runs);
      json.put("mode", mode);
      json.put("databases", shape.databases());
      json.put("workers", shape.async());
      json.put("syncWorkers", shape.sync());
      json.put("keys", shape.keys());
      json.put("keySpace", shape.keySpace());
      json.put("concurrency", concurrency);
      json.put("valueSize", options.workload.valueSize);
      json.put("wal", options.commitlane.wal);
      json.put("log", options.commitlane.log);
      json.put("overrides", overrides().asMap());
      runs.forEach(m -> m.remove("summary"));
      json.put("runs", runs);
      out.println(Json.write(json));
      return runs.size() < timing.runs ? CompareCommand.STOPPED : 0;
    } finally {
      if (recording != null) {
        recording.close();
        System.err.println("flight recording: " + recording.file() + " (jfr print --events 'io.commitlane.*' " + recording.file() + ")");
      }
      options.dir.cleanUp(root);
      StopSignal.finished();
    }
  }

  private Shape shape() {
    boolean keySpaceGiven = spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--key-space");
    int keySpace = options.workload.keySpace;
    Shape s = switch (scenario) {
      case "four-db" -> new Shape(4, or(workers, 1), or(syncWorkers, 0), or(keys, 1000), keySpace);
      case "mixed-sync" -> new Shape(1, or(workers, 2), or(syncWorkers, 2), or(keys, 64), keySpace);
      case "conflict" -> new Shape(1, or(workers, 4), or(syncWorkers, 0), or(keys, 8), keySpaceGiven ? keySpace : 1000);
      case "txlog" -> new Shape(0, or(workers, 4), 0, 1, keySpace);
      case "memory" -> new Shape(databases, 0, 0, 0, 0);
      case "ingest" -> new Shape(1, 0, 0, 1, keySpace);
      default -> new Shape(1, or(workers, 4), or(syncWorkers, 0), or(keys, 64), keySpace);
    };
    Checks.range("--workers", s.async(), scenario.equals("ingest") || scenario.equals("memory") ? 0 : 1, 256);
    Checks.range("--sync-workers", s.sync(), 0, 256);
    Checks.range("--keys", s.keys(), 0, 1_000_000);
    if (s.async() + s.sync() == 0 && !scenario.equals("memory") && !scenario.equals("ingest")) {
      throw Checks.usage("--workers and --sync-workers: at least one worker is needed");
    }
    return s;
  }

  private static int or(Integer v, int fallback) {
    return v != null ? v : fallback;
  }

  private String header(Shape s, PipelineSettings settings) {
    String what = switch (scenario) {
      case "memory" -> s.databases() + " empty databases in a fresh JVM";
      case "txlog" -> String.format(Locale.ROOT, "%d writers append one %d-byte entry per record, durability %s", s.async(),
          options.workload.valueSize, settings.log().durability().name().toLowerCase(Locale.ROOT));
      case "ingest" -> String.format(Locale.ROOT, "%,d records of %d bytes through Ingest.sink (batches of <= 1,000, parallelism %d)", records,
          options.workload.valueSize, ingestParallelism);
      default -> String.format(Locale.ROOT, "%d database%s, %d async workers (%d in flight each) + %d commitSync workers per database, %d keys per commit "
              + "from %,d%s", s.databases(), s.databases() == 1 ? "" : "s", s.async(), concurrency, s.sync(), s.keys(), s.keySpace(),
          scenario.equals("conflict") ? ", read-modify-write" : "");
    };
    return String.format(Locale.ROOT, "bench %s: %s; %d run%s of %.1f s warm-up + %.1f s; mode %s, WAL %s%s, commit-threads %d, occ %s/%d buckets",
        scenario, what, timing.runs, timing.runs == 1 ? "" : "s", timing.warmup, timing.seconds, mode, options.commitlane.wal ? "on" : "off",
        options.commitlane.log ? ", log on (" + settings.log().durability().name().toLowerCase(Locale.ROOT) + ")" : "",
        settings.commitThreads(), settings.storage().occValidation().name().toLowerCase(Locale.ROOT), settings.storage().occLockBuckets());
  }

  /** one-db, four-db, mixed-sync, conflict, probe and ingest: commits through the pipeline. */
  private Map<String, Object> pipeline(Shape shape, PipelineSettings settings, Config config, Path cell) throws Exception {
    ActorSystem<Void> system = BenchSystem.start("bench", config);
    List<CommitlaneDatabase> dbs = new ArrayList<>();
    try {
      for (int d = 0; d < shape.databases(); d++) {
        Path p = Files.createDirectories(cell.resolve("db-" + d));
        dbs.add(CommitlaneDatabase.open(system, p, settings));
      }
      if (scenario.equals("ingest")) {
        return ingest(system, dbs.get(0));
      }
      boolean counters = scenario.equals("conflict");
      WorkerGroup.TransactionMaker maker = counters ? readModifyWrite(shape.keys(), shape.keySpace())
          : WorkerGroup.blindWrites(shape.keys(), shape.keySpace(), options.commitlane.log);
      List<WorkerGroup> groups = new ArrayList<>();
      for (int d = 0; d < dbs.size(); d++) {
        if (shape.async() > 0) {
          groups.add(new WorkerGroup("async", dbs.get(d), shape.async(), concurrency, maker, options.workload.valueSize, 0x5EED + 1000L * d));
        }
        if (shape.sync() > 0) {
          groups.add(new WorkerGroup("commitSync", dbs.get(d), shape.sync(), 0, maker, options.workload.valueSize, 0x5EED + 1000L * d + 500));
        }
      }
      DispatcherProbe probe = scenario.equals("probe")
          ? DispatcherProbe.start(system.dispatchers().lookup(DispatcherSelector.defaultDispatcher()), java.time.Duration.ofMillis(1)) : null;
      try {
        Map<String, Object> result = measure(groups, probe == null ? WindowListener.NONE : probe, dbs);
        if (probe != null) {
          Histogram w = probe.window();
          result.put("probeP50Micros", w.getValueAtPercentile(50) / 1000.0);
          result.put("probeP99Micros", w.getValueAtPercentile(99) / 1000.0);
          result.put("probes", w.getTotalCount());
          result.put("summary", result.get("summary") + String.format(Locale.ROOT, "; default-dispatcher probe p50 %s µs, p99 %s µs (%d probes)",
              Units.micros(w.getValueAtPercentile(50)), Units.micros(w.getValueAtPercentile(99)), w.getTotalCount()));
        }
        if (counters) {
          long committed = groups.stream().mapToLong(WorkerGroup::commitsSoFar).sum();
          long sum = counterSum(dbs.get(0), shape.keySpace());
          long expected = committed * shape.keys();
          result.put("lostUpdates", expected - sum);
          result.put("summary", result.get("summary") + String.format(Locale.ROOT, "; counters: %,d increments committed, sum %,d: %s",
              expected, sum, expected == sum ? "no lost update" : (expected - sum) + " LOST"));
          if (expected != sum) {
            throw new IllegalStateException("lost updates: " + expected + " increments committed, counters sum to " + sum);
          }
        }
        return result;
      } finally {
        if (probe != null) {
          probe.close();
        }
      }
    } finally {
      for (CommitlaneDatabase db : dbs) {
        db.close();
      }
      BenchSystem.stop(system);
      ContentionRunner.deleteRecursively(cell);
    }
  }

  /** Starts every group, warms up, measures one window, stops them (waiting for commits in flight). */
  private Map<String, Object> measure(List<WorkerGroup> groups, WindowListener also, List<CommitlaneDatabase> dbs) throws Exception {
    CountDownLatch ready = new CountDownLatch(groups.stream().mapToInt(WorkerGroup::threads).sum());
    CpuWindow cpu = new CpuWindow();
    WindowListener listener = cpu.and(also);
    Map<String, WorkerGroup.Result> byLabel = new LinkedHashMap<>();
    int executors = 0;
    try (ProgressLine line = ProgressLine.start(System.err, progress.progress, new WindowStatus(timing)::status)) {
      groups.forEach(g -> g.start(ready));
      ready.await();
      ContentionRunner.pause(timing.warmup);
      groups.forEach(WorkerGroup::windowOpened);
      dbs.forEach(CommitlaneDatabase::stats); // the pipeline's interval histograms start at the window's edge
      listener.windowOpened();
      long t0 = System.nanoTime();
      ContentionRunner.pause(timing.seconds);
      double seconds = (System.nanoTime() - t0) / 1e9;
      for (WorkerGroup g : groups) {
        byLabel.merge(g.label, g.windowClosed(seconds), WorkerGroup.Result::merge);
      }
      listener.windowClosed();
      for (CommitlaneDatabase db : dbs) {
        executors += db.stats().executorsStarted();
      }
    } finally {
      for (WorkerGroup g : groups) {
        g.stop();
      }
    }
    WorkerGroup.Result total = byLabel.values().stream().reduce(WorkerGroup.Result::merge).orElseThrow();
    Map<String, Object> result = resultJson(total, cpu.nanosPer(total.commits()));
    result.put("executorsStarted", executors);
    StringBuilder summary = new StringBuilder(summary(total, cpu.nanosPer(total.commits()))).append(", executors ").append(executors);
    if (byLabel.size() > 1) {
      Map<String, Object> parts = new LinkedHashMap<>();
      for (WorkerGroup.Result r : byLabel.values()) {
        parts.put(r.label(), resultJson(r, Double.NaN));
        summary.append("\n    ").append(r.label()).append(": ").append(summary(r, Double.NaN));
      }
      result.put("groups", parts);
    }
    result.put("summary", summary.toString());
    return result;
  }

  private static Map<String, Object> resultJson(WorkerGroup.Result r, double cpuNanos) {
    Histogram h = r.latency();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("commitsPerSecond", r.commits() / r.seconds());
    m.put("commits", r.commits());
    m.put("conflicts", r.conflicts());
    m.put("conflictRate", r.measurement().conflictRate());
    m.put("seconds", r.seconds());
    Map<String, Object> lat = new LinkedHashMap<>();
    for (double p : new double[] {50, 90, 99, 99.9}) {
      lat.put("p" + (p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p)), h.getValueAtPercentile(p) / 1000.0);
    }
    lat.put("max", h.getMaxValue() / 1000.0);
    m.put("latencyMicros", lat);
    if (!Double.isNaN(cpuNanos)) {
      m.put("cpuMicrosPerCommit", cpuNanos / 1000);
    }
    return m;
  }

  private static String summary(WorkerGroup.Result r, double cpuNanos) {
    Histogram h = r.latency();
    return String.format(Locale.ROOT, "%s commits/s, conflicts %s, latency µs p50 %s p90 %s p99 %s p99.9 %s max %s%s", Units.count(r.commits() / r.seconds()),
        Units.percent(r.measurement().conflictRate()), Units.micros(h.getValueAtPercentile(50)), Units.micros(h.getValueAtPercentile(90)),
        Units.micros(h.getValueAtPercentile(99)), Units.micros(h.getValueAtPercentile(99.9)), Units.micros(h.getMaxValue()),
        Double.isNaN(cpuNanos) ? "" : ", CPU " + Units.micros(cpuNanos) + " µs/commit");
  }

  /** Each commit increments {@code keys} counters (8-byte longs) read through the transaction: conflicts are real. */
  private static WorkerGroup.TransactionMaker readModifyWrite(int keys, int keySpace) {
    return (db, random, value) -> {
      Transaction t = db.begin();
      for (int i = 0; i < keys; i++) {
        byte[] k = WorkerGroup.key(random.nextInt(keySpace));
        byte[] old = t.get(k);
        t.put(k, ByteBuffer.allocate(8).putLong((old == null ? 0 : ByteBuffer.wrap(old).getLong()) + 1).array());
      }
      return t;
    };
  }

  private static long counterSum(CommitlaneDatabase db, int keySpace) {
    long sum = 0;
    Transaction t = db.begin();
    for (int i = 0; i < keySpace; i++) {
      byte[] v = t.getUntracked(WorkerGroup.key(i));
      sum += v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }
    t.abort();
    return sum;
  }

  private Map<String, Object> memory() throws Exception {
    double bytes = MemoryBench.probe("commitlane", databases);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bytes", bytes);
    m.put("summary", String.format(Locale.ROOT, "%d empty databases: %s (anonymous RSS + live heap)", databases, Units.mib(bytes)));
    return m;
  }

  private Map<String, Object> txlog(Shape shape, Durability durability, Path cell) throws Exception {
    CpuWindow cpu = new CpuWindow();
    Measurement m;
    try (ProgressLine line = ProgressLine.start(System.err, progress.progress, new WindowStatus(timing)::status)) {
      m = new ContentionRunner(1, options.workload.valueSize, timing.warmup, timing.seconds)
          .run(new TxlogAppendVariant(durability), new Load(shape.async(), 1), cell, cpu);
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("commitsPerSecond", m.commitsPerSecond());
    r.put("p50Micros", m.p50Nanos() / 1000);
    r.put("p99Micros", m.p99Nanos() / 1000);
    r.put("cpuMicrosPerCommit", cpu.nanosPer(m.commits()) / 1000);
    r.put("summary", String.format(Locale.ROOT, "%s records/s, latency µs p50 %s p99 %s, CPU %s µs/record", Units.count(m.commitsPerSecond()),
        Units.micros(m.p50Nanos()), Units.micros(m.p99Nanos()), Units.micros(cpu.nanosPer(m.commits()))));
    return r;
  }

  private PipelineOverrides overrides() {
    PipelineOverrides o = options.commitlane.overrides().plus(PipelineOverrides.none().mode("--mode", mode));
    return queueCapacity == null ? o : o.with("--queue-capacity", "commit-queue-capacity", queueCapacity);
  }

  private Map<String, Object> ingest(ActorSystem<?> system, CommitlaneDatabase db) throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    byte[] value = new byte[options.workload.valueSize];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) random.nextInt();
    }
    int keySpace = options.workload.keySpace;
    long cpu0 = CpuWindow.processCpuNanos();
    long t0 = System.nanoTime();
    IngestTotals totals;
    try (ProgressLine line = ProgressLine.start(System.err, progress.progress, () -> "bench ingest: " + records + " records")) {
      totals = Source.range(0, records - 1)
          .map(i -> new KeyValue(WorkerGroup.key(i % keySpace), value))
          .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(1000).withParallelism(ingestParallelism)), system)
          .toCompletableFuture().get(10, TimeUnit.MINUTES);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuPerRecord = (CpuWindow.processCpuNanos() - cpu0) / (double) records;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("recordsPerSecond", totals.records() / seconds);
    r.put("records", totals.records());
    r.put("transactions", totals.transactions());
    r.put("cpuMicrosPerRecord", cpuPerRecord / 1000);
    r.put("summary", String.format(Locale.ROOT, "%s records/s (%,d records in %,d transactions, %.2f s), CPU %s µs/record",
        Units.count(totals.records() / seconds), totals.records(), totals.transactions(), seconds, Units.micros(cpuPerRecord)));
    return r;
  }

  /** The progress line of one measured window. */
  private static final class WindowStatus {
    private final long start = System.nanoTime();
    private final TimingOptions timing;

    WindowStatus(TimingOptions timing) {
      this.timing = timing;
    }

    String status() {
      double t = (System.nanoTime() - start) / 1e9;
      String phase = t < timing.warmup ? "warm-up" : "measuring";
      return String.format(Locale.ROOT, "bench: %s · %s of %s · Ctrl-C stops and reports", phase, ProgressLine.clock(t),
          ProgressLine.clock(timing.warmup + timing.seconds));
    }
  }
}
