package io.commitlane.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.actors.stream.KeyValue;
import io.commitlane.actors.stream.RecordWriter;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Bulk ingestion through the stream stages against raw rocksdbjni, and
 * change-feed read throughput. Ingestion: N records (key + value) through {@link Ingest#sink},
 * the same records one per transaction through {@link CommitFlow}, and raw {@code
 * db.write(WriteBatch)} of batches of the sink's maximum size; WAL off everywhere, a fresh
 * database per measurement, rows rotated per round, medians of {@code --runs}. Change feed: the
 * records of a log read from the start by {@link ChangeFeed#current}, then by {@link
 * ChangeFeed#live} while a writer ingests more into the same log.
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "Stream ingestion (batched sink, one-record-per-transaction flow) against raw db.write(WriteBatch), "
        + "and change-feed read throughput with and without a concurrent writer (WAL off).")
final class IngestBench implements Callable<Integer> {
  private static final String SINK = "ingest sink";
  private static final String SINK_ORDERED = "ingest sink, blind writes ordered";
  private static final String FLOW = "commit flow, 1 record/txn";
  private static final String RAW = "raw db.write(WriteBatch)";
  private static final String FEED_LOG = "feed";
  private static final double TARGET = 0.8;

  @Option(names = "--records", defaultValue = "1000000", description = "Records ingested per measurement. Default: ${DEFAULT-VALUE}")
  int records;

  @Option(names = "--flow-records", defaultValue = "-1",
      description = "Records for the one-per-transaction flow row (-1: same as --records). Default: ${DEFAULT-VALUE}")
  int flowRecords;

  @Option(names = "--value-size", defaultValue = "100", description = "Value bytes. Default: ${DEFAULT-VALUE}")
  int valueSize;

  @Option(names = "--batch", defaultValue = "1000",
      description = "Records per transaction: the sink's max-records and the raw row's batch. Default: ${DEFAULT-VALUE}")
  int batch;

  @Option(names = "--max-bytes", defaultValue = "4194304", description = "The sink's max-bytes per transaction. Default: ${DEFAULT-VALUE}")
  long maxBytes;

  @Option(names = "--parallelism", defaultValue = "1",
      description = "Sink batches in flight. Above 1 use --blind-writes ordered, or big batches conflict. Default: ${DEFAULT-VALUE}")
  int parallelism;

  @Option(names = "--ordered-parallelism", defaultValue = "2",
      description = "Sink batches in flight in the sink-ordered row (occ-blind-writes = ordered). Default: ${DEFAULT-VALUE}")
  int orderedParallelism;

  @Option(names = "--flow-parallelism", defaultValue = "64", description = "Requests in flight in the flow row. Default: ${DEFAULT-VALUE}")
  int flowParallelism;

  @Option(names = "--blind-writes", defaultValue = "conflict",
      description = "commitlane.occ-blind-writes for the sink, flow and feed rows: conflict or ordered. Default: ${DEFAULT-VALUE}")
  String blindWrites;

  @Option(names = "--commit-threads", defaultValue = "auto", description = "commitlane.commit-threads. Default: ${DEFAULT-VALUE}")
  String commitThreads;

  @Option(names = "--feed-records", defaultValue = "1000000",
      description = "Log entries written for the change-feed rows (0: skip them). Default: ${DEFAULT-VALUE}")
  int feedRecords;

  @Option(names = "--feed-batch", defaultValue = "100", description = "Log entries per transaction (per log record) for the feed rows. Default: ${DEFAULT-VALUE}")
  int feedBatch;

  @Option(names = "--warmup-records", defaultValue = "100000",
      description = "Records each row ingests once before the measured rounds (0: no warm-up). Default: ${DEFAULT-VALUE}")
  int warmupRecords;

  @Option(names = "--rows", split = ",", defaultValue = "sink,sink-ordered,flow,raw",
      description = "Ingestion rows: sink, sink-ordered (parallel batches, occ-blind-writes = ordered), flow, raw (ratios need raw),"
          + " fairness (two commit flows and plain callers sharing one database with a small queue: each one's share),"
          + " matrix (the sink at every --matrix-parallelism x --matrix-queue-capacity). Default: ${DEFAULT-VALUE}")
  List<String> rowNames;

  @Option(names = "--matrix-parallelism", split = ",", defaultValue = "1,2,4",
      description = "matrix rows: sink parallelism values. Default: ${DEFAULT-VALUE}")
  List<Integer> matrixParallelism;

  @Option(names = "--matrix-queue-capacity", split = ",", defaultValue = "1,64,default",
      description = "matrix rows: commitlane.commit-queue-capacity values (default: the setting's default). Default: ${DEFAULT-VALUE}")
  List<String> matrixCapacity;

  /** A sink row of the matrix: parallelism and queue capacity (null: the default). */
  private record SinkCell(int parallelism, Integer capacity) {
    String name() {
      return "ingest sink p" + parallelism + " q" + (capacity == null ? "default" : capacity);
    }
  }

  private final Map<String, SinkCell> matrix = new LinkedHashMap<>();

  @Option(names = "--fairness-capacity", defaultValue = "4",
      description = "fairness row: commitlane.commit-queue-capacity of the shared database. Default: ${DEFAULT-VALUE}")
  int fairnessCapacity;

  @Option(names = "--fairness-seconds", defaultValue = "3", description = "fairness row: seconds per round. Default: ${DEFAULT-VALUE}")
  double fairnessSeconds;

  @Option(names = "--fairness-in-flight", defaultValue = "16",
      description = "fairness row: commits in flight per participant (stream parallelism, caller's outstanding commits). Default: ${DEFAULT-VALUE}")
  int fairnessInFlight;

  @Option(names = "--runs", defaultValue = "3", description = "Rounds; each runs every row once, in rotated order. Default: ${DEFAULT-VALUE}")
  int runs;

  @Option(names = "--dir", description = "Directory for the databases (default: a temporary directory)")
  Path dir;

  private static final int VALUES = 1024;
  private final PrintStream out = System.out;
  private byte[][] values;
  private int cells;

  /** One measurement: how many records in how long (and, for the sink, in how many transactions). */
  private record Sample(long records, long nanos, long transactions, long cpuNanos, long conflicts) {
    double perSecond() {
      return records / (nanos / 1e9);
    }

    /** CPU time of the whole process (every thread, RocksDB's too) per record: what a loaded machine charges. */
    double cpuNanosPerRecord() {
      return cpuNanos / (double) records;
    }
  }

  /** A change-feed measurement: what the reader read, and what the writer wrote meanwhile. */
  private record FeedSample(long logRecords, long entries, long bytes, long nanos, double writerEntriesPerSecond, double lagMillis) {
    double entriesPerSecond() {
      return entries / (nanos / 1e9);
    }

    double logRecordsPerSecond() {
      return logRecords / (nanos / 1e9);
    }

    double bytesPerSecond() {
      return bytes / (nanos / 1e9);
    }
  }

  @Override
  public Integer call() throws Exception {
    validate();
    Random random = new Random(42);
    values = new byte[VALUES][valueSize];
    for (byte[] v : values) {
      random.nextBytes(v);
    }
    int flowN = flowRecords < 0 ? records : flowRecords;
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-ingest");
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "ingest-bench");
    try {
      out.printf(Locale.ROOT, "ingest bench: %,d records (flow row %,d) x %d-byte values, batches of <= %,d records, sink parallelism %d"
              + " (sink-ordered %d), flow parallelism %d, occ-blind-writes %s, commit-threads %s, %d runs rotated, WAL off, %d cores, Java %s%n",
          records, flowN, valueSize, batch, parallelism, orderedParallelism, flowParallelism, blindWrites, commitThreads, runs,
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
      List<String> rows = new ArrayList<>();
      boolean fairness = false;
      for (String name : rowNames) {
        if (name.equals("fairness")) {
          fairness = true;
        } else if (name.equals("matrix")) {
          for (String capacity : matrixCapacity) {
            for (int p : matrixParallelism) {
              SinkCell cell = new SinkCell(p, capacity.equals("default") ? null : Integer.valueOf(capacity));
              matrix.put(cell.name(), cell);
              rows.add(cell.name());
            }
          }
        } else {
          rows.add(row(name));
        }
      }
      if (warmupRecords > 0) {
        out.printf(Locale.ROOT, "  warm-up: %,d records per row (not reported)%n", warmupRecords);
        for (String row : rows) {
          measure(system, row, warmupRecords, root);
        }
      }
      Map<String, List<Sample>> samples = new LinkedHashMap<>();
      rows.forEach(r -> samples.put(r, new ArrayList<>()));
      for (int run = 0; run < runs; run++) {
        for (int i = 0; i < rows.size(); i++) {
          String row = rows.get((i + run) % rows.size());
          Sample s = measure(system, row, row.equals(FLOW) ? flowN : records, root);
          samples.get(row).add(s);
          out.printf(Locale.ROOT, "  run %d  %-28s %10s records/s  %6s µs CPU/record  (%,d records in %.2f s, %,d transactions, %,d conflicts)%n",
              run + 1, row, Units.count(s.perSecond()), Units.micros(s.cpuNanosPerRecord()), s.records(), s.nanos() / 1e9, s.transactions(),
              s.conflicts());
        }
      }
      Map<String, List<FeedSample>> feed = new LinkedHashMap<>();
      if (feedRecords > 0) {
        List<String> feedRows = List.of("feed, no writer", "feed, concurrent writer");
        feedRows.forEach(r -> feed.put(r, new ArrayList<>()));
        for (int run = 0; run < runs; run++) {
          for (int i = 0; i < feedRows.size(); i++) {
            String row = feedRows.get((i + run) % feedRows.size());
            FeedSample s = measureFeed(system, row.endsWith("concurrent writer"), root);
            feed.get(row).add(s);
            out.printf(Locale.ROOT, "  run %d  %-28s %10s entries/s  %10s log records/s  %s/s%s%n", run + 1, row,
                Units.count(s.entriesPerSecond()), Units.count(s.logRecordsPerSecond()), Units.mib(s.bytesPerSecond()),
                Double.isNaN(s.writerEntriesPerSecond()) ? "" : String.format(Locale.ROOT,
                    "  (writer %s entries/s; the feed read its last entry %.0f ms after the writer's last commit)",
                    Units.count(s.writerEntriesPerSecond()), s.lagMillis()));
          }
        }
      }
      Map<String, List<Double>> shares = new LinkedHashMap<>();
      if (fairness) {
        fairness(system, root, shares);
      }
      out.println();
      if (!samples.isEmpty()) {
        out.print(table(samples));
      }
      if (!shares.isEmpty()) {
        out.println();
        out.print(fairnessTable(shares));
      }
      if (!feed.isEmpty()) {
        out.println();
        out.print(feedTable(feed));
      }
      return 0;
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      if (dir == null) {
        delete(root);
      }
    }
  }

  /** Rounds of the fairness row: per participant, commits/s of each round (keys "name") and its share (keys "name share"). */
  private void fairness(ActorSystem<?> system, Path root, Map<String, List<Double>> results) throws Exception {
    AdmissionFairness f = new AdmissionFairness(fairnessInFlight, i -> key(i), values[0]);
    out.printf(Locale.ROOT, "  fairness: 2 commit flows + plain callers, %d in flight each, 1-record transactions, commit-queue-capacity %d,"
        + " %.1f s per round%n", fairnessInFlight, fairnessCapacity, fairnessSeconds);
    for (int run = 0; run < runs; run++) {
      Path path = root.resolve("cell-" + (cells++));
      try (CommitlaneDatabase db = CommitlaneDatabase.open(system, path, settings(system, blindWrites, fairnessCapacity))) {
        Map<String, Long> counts = f.run(system, db, fairnessSeconds, true);
        counts.remove("_nanos");
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder line = new StringBuilder();
        for (var e : counts.entrySet()) {
          double rate = e.getValue() / fairnessSeconds;
          double share = total == 0 ? 0 : e.getValue() / (double) total;
          results.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(rate);
          results.computeIfAbsent(e.getKey() + " share", k -> new ArrayList<>()).add(share);
          line.append(String.format(Locale.ROOT, "%s %s/s (%.0f%%); ", e.getKey(), Units.count(rate), share * 100));
        }
        out.printf(Locale.ROOT, "  run %d  fairness  %s refused admissions %,d%n", run + 1, line, db.stats().overloaded());
      } finally {
        delete(path);
      }
    }
  }

  private static String fairnessTable(Map<String, List<Double>> results) {
    StringBuilder sb = new StringBuilder("| participant (shared database, small queue) | commits/s median [range] | share median [range] |\n|---|---|---|\n");
    for (var e : results.entrySet()) {
      if (e.getKey().endsWith(" share")) {
        continue;
      }
      Spread share = Spread.of(results.get(e.getKey() + " share"));
      sb.append("| ").append(e.getKey()).append(" | ").append(Spread.of(e.getValue()).format()).append(String.format(Locale.ROOT,
          " | %.0f%% [%.0f%%-%.0f%%] |%n", share.median() * 100, share.min() * 100, share.max() * 100));
    }
    return sb.toString();
  }

  private static String row(String name) {
    return switch (name) {
      case "sink" -> SINK;
      case "sink-ordered" -> SINK_ORDERED;
      case "flow" -> FLOW;
      case "raw" -> RAW;
      default -> throw Checks.usage("--rows: unknown row '" + name + "'; known: sink, sink-ordered, flow, raw, matrix");
    };
  }

  private static double median(List<Sample> samples) {
    return samples == null ? Double.NaN : Spread.of(samples.stream().map(Sample::perSecond).toList()).median();
  }

  private String table(Map<String, List<Sample>> samples) {
    double raw = median(samples.get(RAW));
    StringBuilder sb = new StringBuilder();
    sb.append("| row | records/s median [range] | x raw | transactions (median) | conflicts (median) | process CPU µs/record (median) |\n");
    sb.append("|---|---|---|---|---|---|\n");
    for (var e : samples.entrySet()) {
      Spread rate = Spread.of(e.getValue().stream().map(Sample::perSecond).toList());
      double txns = Spread.of(e.getValue().stream().map(s -> (double) s.transactions()).toList()).median();
      sb.append("| ").append(e.getKey()).append(" | ").append(rate.format()).append(" | ").append(Units.ratio(rate.median() / raw))
          .append(" | ").append(txns > 0 ? Units.count(txns) : "-")
          .append(" | ").append(Units.count(Spread.of(e.getValue().stream().map(x -> (double) x.conflicts()).toList()).median()))
          .append(" | ").append(Units.micros(Spread.of(e.getValue().stream().map(Sample::cpuNanosPerRecord).toList()).median()))
          .append(" |\n");
    }
    String sep = "\n";
    List<String> sinkRows = new ArrayList<>(List.of(SINK, SINK_ORDERED));
    sinkRows.addAll(matrix.keySet());
    for (String row : sinkRows) {
      double sink = median(samples.get(row));
      if (!Double.isNaN(sink) && !Double.isNaN(raw)) {
        sb.append(sep);
        sep = "";
        sb.append(String.format(Locale.ROOT, "target: %s >= %.2fx raw batched writes: %s (%s)%n", row, TARGET,
            sink / raw >= TARGET ? "met" : "NOT met", Units.ratio(sink / raw)));
      }
    }
    if (!matrix.isEmpty()) {
      sb.append("\n| matrix: records/s x parallelism 1 (same capacity) |");
      for (int p : matrixParallelism) {
        sb.append(" p").append(p).append(" |");
      }
      sb.append(" x default capacity (same parallelism) |\n|---|");
      for (int ignored : matrixParallelism) {
        sb.append("---|");
      }
      sb.append("---|\n");
      for (String capacity : matrixCapacity) {
        Integer cap = capacity.equals("default") ? null : Integer.valueOf(capacity);
        sb.append("| q").append(capacity).append(" |");
        StringBuilder vsDefault = new StringBuilder();
        double p1 = median(samples.get(new SinkCell(matrixParallelism.get(0), cap).name()));
        for (int p : matrixParallelism) {
          double m = median(samples.get(new SinkCell(p, cap).name()));
          sb.append(' ').append(Units.ratio(m / p1)).append(" |");
          double def = median(samples.get(new SinkCell(p, null).name()));
          vsDefault.append(vsDefault.length() == 0 ? "" : ", ").append('p').append(p).append(' ').append(Units.ratio(m / def));
        }
        sb.append(' ').append(vsDefault).append(" |\n");
      }
    }
    return sb.toString();
  }

  private static String feedTable(Map<String, List<FeedSample>> feed) {
    StringBuilder sb = new StringBuilder();
    sb.append("| change feed | entries/s median [range] | log records/s | MiB/s | writer entries/s | feed done after writer, ms |\n");
    sb.append("|---|---|---|---|---|---|\n");
    for (var e : feed.entrySet()) {
      List<FeedSample> ss = e.getValue();
      double writer = Spread.of(ss.stream().map(FeedSample::writerEntriesPerSecond).filter(d -> !Double.isNaN(d)).toList()).median();
      sb.append("| ").append(e.getKey()).append(" | ").append(Spread.of(ss.stream().map(FeedSample::entriesPerSecond).toList()).format())
          .append(" | ").append(Units.count(Spread.of(ss.stream().map(FeedSample::logRecordsPerSecond).toList()).median()))
          .append(" | ").append(Units.mib(Spread.of(ss.stream().map(FeedSample::bytesPerSecond).toList()).median()).replace(" MiB", ""))
          .append(" | ").append(Units.count(writer))
          .append(" | ").append(Double.isNaN(writer) ? "-" : String.format(Locale.ROOT, "%.0f",
              Spread.of(ss.stream().map(FeedSample::lagMillis).toList()).median()))
          .append(" |\n");
    }
    return sb.toString();
  }

  private Sample measure(ActorSystem<?> system, String row, int n, Path root) throws Exception {
    Path path = root.resolve("cell-" + (cells++));
    try {
      Sample s = switch (row) {
        case SINK -> ingestSink(system, n, path, parallelism, blindWrites);
        case SINK_ORDERED -> ingestSink(system, n, path, orderedParallelism, "ordered");
        case FLOW -> commitFlow(system, n, path);
        case RAW -> rawWriteBatch(n, path);
        default -> {
          SinkCell cell = matrix.get(row);
          if (cell == null) {
            throw new IllegalArgumentException(row);
          }
          yield ingestSink(system, n, path, cell.parallelism(), blindWrites, cell.capacity());
        }
      };
      return s;
    } finally {
      delete(path);
    }
  }

  private Sample ingestSink(ActorSystem<?> system, int n, Path path, int inFlight, String blind) throws Exception {
    return ingestSink(system, n, path, inFlight, blind, null);
  }

  private Sample ingestSink(ActorSystem<?> system, int n, Path path, int inFlight, String blind, Integer capacity) throws Exception {
    try (CommitlaneDatabase db = CommitlaneDatabase.open(system, path, settings(system, blind, capacity))) {
      IngestSettings s = IngestSettings.defaults().withMaxRecords(batch).withMaxBytes(maxBytes).withParallelism(inFlight);
      long cpu = processCpuNanos();
      long start = System.nanoTime();
      IngestTotals t = await(Source.range(0, n - 1).map(i -> new KeyValue(key(i), value(i))).runWith(Ingest.sink(db, s), system));
      long nanos = System.nanoTime() - start;
      cpu = processCpuNanos() - cpu;
      check(t.records() == n, "the ingest sink committed " + t.records() + " of " + n + " records");
      return new Sample(n, nanos, t.transactions(), cpu, db.stats().conflicts());
    }
  }

  private Sample commitFlow(ActorSystem<?> system, int n, Path path) throws Exception {
    try (CommitlaneDatabase db = CommitlaneDatabase.open(system, path, settings(system))) {
      CommitFlowSettings s = CommitFlowSettings.defaults().withParallelism(flowParallelism);
      long cpu = processCpuNanos();
      long start = System.nanoTime();
      long committed = await(Source.range(0, n - 1)
          .map(i -> WriteRequest.builder(i).put(key(i), value(i)).build())
          .via(CommitFlow.unordered(db, s))
          .runWith(Sink.fold(0L, (sum, o) -> o.isCommitted() ? sum + 1 : sum), system));
      long nanos = System.nanoTime() - start;
      cpu = processCpuNanos() - cpu;
      check(committed == n, "the commit flow committed " + committed + " of " + n + " records");
      return new Sample(n, nanos, n, cpu, db.stats().conflicts());
    }
  }

  private Sample rawWriteBatch(int n, Path path) throws Exception {
    Files.createDirectories(path);
    try (Options options = new Options().setCreateIfMissing(true);
        WriteOptions wo = new WriteOptions().setDisableWAL(true);
        RocksDB db = RocksDB.open(options, path.toString());
        WriteBatch wb = new WriteBatch()) {
      long cpu = processCpuNanos();
      long start = System.nanoTime();
      long txns = 0;
      for (int i = 0; i < n; ) {
        wb.clear();
        int end = Math.min(n, i + batch);
        for (; i < end; i++) {
          wb.put(key(i), value(i));
        }
        db.write(wo, wb);
        txns++;
      }
      long nanos = System.nanoTime() - start;
      return new Sample(n, nanos, txns, processCpuNanos() - cpu, 0);
    }
  }

  private FeedSample measureFeed(ActorSystem<?> system, boolean concurrentWriter, Path root) throws Exception {
    Path path = root.resolve("cell-" + (cells++));
    try (CommitlaneDatabase db = CommitlaneDatabase.open(system, path, settings(system))) {
      IngestSettings s = IngestSettings.defaults().withMaxRecords(feedBatch).withParallelism(parallelism);
      RecordWriter<KeyValue> logged = RecordWriter.of((txn, kv) -> {
        txn.put(kv.key(), kv.value());
        txn.useLog(FEED_LOG).addLogEntry(kv.value());
      }, KeyValue::bytes);
      IngestTotals setup = await(Source.range(0, feedRecords - 1).map(i -> new KeyValue(key(i), value(i))).runWith(Ingest.sink(db, s, logged), system));
      check(setup.records() == feedRecords, "feed setup committed " + setup.records() + " of " + feedRecords);
      long total = concurrentWriter ? 2L * feedRecords : feedRecords;
      AtomicLong entries = new AtomicLong();
      AtomicLong bytes = new AtomicLong();
      AtomicLong logRecords = new AtomicLong();
      long start = System.nanoTime();
      CompletionStage<IngestTotals> writer = null;
      long[] writerNanos = new long[1];
      if (concurrentWriter) {
        writer = Source.range(feedRecords, 2 * feedRecords - 1).map(i -> new KeyValue(key(i), value(i)))
            .runWith(Ingest.sink(db, s, logged), system)
            .thenApply(t -> {
              writerNanos[0] = System.nanoTime() - start;
              return t;
            });
      }
      Source<LogRecord, ?> feed = concurrentWriter
          ? ChangeFeed.live(db, FEED_LOG, ReadRequest.fromStart())
          : ChangeFeed.current(db, FEED_LOG, ReadRequest.fromStart());
      // Watch the feed's own end too: the database must not close under a feed still reading.
      Pair<CompletionStage<Done>, CompletionStage<Done>> run = feed
          .watchTermination(Keep.right())
          .takeWhile(r -> {
            logRecords.incrementAndGet();
            long b = 0;
            for (var e : r.entries()) {
              b += e.remaining();
            }
            bytes.addAndGet(b);
            return entries.addAndGet(r.entries().size()) < total;
          }, true)
          .toMat(Sink.ignore(), Keep.both())
          .run(system);
      await(run.second());
      long nanos = System.nanoTime() - start;
      await(run.first().exceptionally(e -> Done.getInstance()));
      double writerRate = Double.NaN;
      double lag = Double.NaN;
      if (writer != null) {
        IngestTotals w = await(writer);
        check(w.records() == feedRecords, "the concurrent writer committed " + w.records() + " of " + feedRecords);
        writerRate = feedRecords / (writerNanos[0] / 1e9);
        lag = Math.max(0, nanos - writerNanos[0]) / 1e6;
      }
      check(entries.get() == total, "the feed read " + entries.get() + " of " + total + " entries");
      return new FeedSample(logRecords.get(), entries.get(), bytes.get(), nanos, writerRate, lag);
    } finally {
      delete(path);
    }
  }

  private PipelineSettings settings(ActorSystem<?> system) {
    return settings(system, blindWrites);
  }

  private PipelineSettings settings(ActorSystem<?> system, String blind) {
    return settings(system, blind, null);
  }

  private PipelineSettings settings(ActorSystem<?> system, String blind, Integer capacity) {
    Map<String, Object> m = new HashMap<>();
    if (capacity != null) {
      m.put("commit-queue-capacity", capacity);
    }
    m.put("wal", "off");
    m.put("occ-blind-writes", blind);
    m.put("commit-threads", commitThreads);
    Config c = ConfigFactory.parseMap(m).atPath(PipelineSettings.ROOT).withFallback(system.settings().config());
    return PipelineSettings.fromConfig(c);
  }

  /** "rec000000042": 12 bytes, ordered like the index. */
  private static byte[] key(long i) {
    byte[] k = {'r', 'e', 'c', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
    for (int p = k.length - 1; p >= 3 && i > 0; p--, i /= 10) {
      k[p] = (byte) ('0' + i % 10);
    }
    return k;
  }

  /**
   * The value of record {@code i}: one of 1,024 distinct random arrays, shared by every row, so
   * generating records costs next to nothing and the rows measure ingestion, not generation.
   */
  private byte[] value(long i) {
    return values[(int) (i & (VALUES - 1))];
  }

  private static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : 0;
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
  }

  private static void check(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }

  private static void delete(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> all = Files.walk(path)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }

  private void validate() {
    Checks.range("--records", records, 1, 1_000_000_000);
    Checks.range("--flow-records", flowRecords, -1, 1_000_000_000);
    Checks.range("--value-size", valueSize, 1, 1 << 20);
    Checks.range("--batch", batch, 1, 1_000_000);
    Checks.range("--max-bytes", maxBytes, 1, 1L << 30);
    Checks.range("--parallelism", parallelism, 1, 64);
    Checks.range("--ordered-parallelism", orderedParallelism, 1, 64);
    Checks.range("--flow-parallelism", flowParallelism, 1, CommitFlowSettings.MAX_PARALLELISM);
    Checks.range("--feed-records", feedRecords, 0, 1_000_000_000);
    Checks.range("--feed-batch", feedBatch, 1, 1_000_000);
    Checks.range("--warmup-records", warmupRecords, 0, 1_000_000_000);
    Checks.positive("--runs", runs);
    if (matrixParallelism.isEmpty() || matrixCapacity.isEmpty()) {
      throw Checks.usage("--matrix-parallelism and --matrix-queue-capacity need at least one value each");
    }
    for (int p : matrixParallelism) {
      Checks.range("--matrix-parallelism", p, 1, 64);
    }
    for (String c : matrixCapacity) {
      if (!c.equals("default")) {
        try {
          Checks.range("--matrix-queue-capacity", Integer.parseInt(c), 1, 10_000_000);
        } catch (NumberFormatException e) {
          throw Checks.usage("--matrix-queue-capacity takes integers in 1..10000000 or default, was " + c);
        }
      }
    }
    if (!blindWrites.equals("conflict") && !blindWrites.equals("ordered")) {
      throw Checks.usage("--blind-writes must be conflict or ordered, was " + blindWrites);
    }
    if (!commitThreads.equals("auto")) {
      try {
        Checks.range("--commit-threads", Integer.parseInt(commitThreads), 1, 64);
      } catch (NumberFormatException e) {
        throw Checks.usage("--commit-threads must be auto or an integer in 1..64, was " + commitThreads);
      }
    }
  }
}
