package io.commitlane.bench.ingest;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.harness.ContentionRunner;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Bulk ingestion through the stream stages against raw rocksdbjni, and change-feed read
 * throughput. Ingestion rows: N records (key + value) through the ingest sink ({@link
 * IngestSinkRow}), the same records one per transaction through the commit flow ({@link
 * IngestFlowRow}), and raw {@code db.write(WriteBatch)} of batches of the sink's maximum size
 * ({@link IngestRawRow}); WAL off everywhere, a fresh database per measurement, rows rotated per
 * round, medians of {@code --runs} ({@link IngestReport}). Change feed ({@link IngestFeedRows}):
 * the records of a log read from the start, then while a writer ingests more into the same log.
 * Fairness ({@link IngestFairness}): who gets a small commit queue. This class runs the rounds.
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "Stream ingestion (batched sink, one-record-per-transaction flow) against raw db.write(WriteBatch), "
        + "and change-feed read throughput with and without a concurrent writer (WAL off).")
public final class IngestBench implements Callable<Integer> {
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

  private final PrintStream out = System.out;
  private int cells;

  @Override
  public Integer call() throws Exception {
    validate();
    IngestRecords data = new IngestRecords(valueSize);
    int flowN = flowRecords < 0 ? records : flowRecords;
    Path root = dir != null ? dir : Files.createTempDirectory("commitlane-ingest");
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "ingest-bench");
    try {
      out.printf(Locale.ROOT, "ingest bench: %,d records (flow row %,d) x %d-byte values, batches of <= %,d records, sink parallelism %d"
              + " (sink-ordered %d), flow parallelism %d, occ-blind-writes %s, commit-threads %s, %d runs rotated, WAL off, %d cores, Java %s%n",
          records, flowN, valueSize, batch, parallelism, orderedParallelism, flowParallelism, blindWrites, commitThreads, runs,
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
      Map<String, IngestRow> byName = new LinkedHashMap<>();
      List<String> rows = new ArrayList<>();
      List<String> matrixRows = new ArrayList<>();
      boolean fairness = false;
      for (String name : rowNames) {
        if (name.equals("fairness")) {
          fairness = true;
        } else if (name.equals("matrix")) {
          for (String capacity : matrixCapacity) {
            for (int p : matrixParallelism) {
              String row = IngestSinkRow.matrixName(p, capacity(capacity));
              if (!byName.containsKey(row)) {
                byName.put(row, new IngestSinkRow(system, settings(system, blindWrites, capacity(capacity)), sink(p), data));
                matrixRows.add(row);
              }
              rows.add(row);
            }
          }
        } else {
          String row = rowName(name);
          byName.computeIfAbsent(row, r -> row(system, r, data));
          rows.add(row);
        }
      }
      if (warmupRecords > 0) {
        out.printf(Locale.ROOT, "  warm-up: %,d records per row (not reported)%n", warmupRecords);
        for (String row : rows) {
          ingest(byName.get(row), warmupRecords, root);
        }
      }
      Map<String, List<IngestSample>> samples = new LinkedHashMap<>();
      rows.forEach(r -> samples.put(r, new ArrayList<>()));
      for (int run = 0; run < runs; run++) {
        for (int i = 0; i < rows.size(); i++) {
          String row = rows.get((i + run) % rows.size());
          IngestSample s = ingest(byName.get(row), row.equals(IngestFlowRow.NAME) ? flowN : records, root);
          samples.get(row).add(s);
          out.println(IngestReport.line(run + 1, row, s));
        }
      }
      Map<String, List<IngestFeedRows.Sample>> feed = feedRecords > 0 ? feedRounds(system, data, root) : Map.of();
      Map<String, List<Double>> shares = !fairness ? Map.of() : new IngestFairness(system, settings(system, blindWrites, fairnessCapacity),
          data, fairnessCapacity, fairnessSeconds, fairnessInFlight).run(runs, () -> nextCell(root), out);
      out.println();
      if (!samples.isEmpty()) {
        out.print(new IngestReport(matrixParallelism, matrixCapacity, matrixRows).table(samples));
      }
      if (!shares.isEmpty()) {
        out.println();
        out.print(IngestFairness.table(shares));
      }
      if (!feed.isEmpty()) {
        out.println();
        out.print(IngestFeedRows.table(feed));
      }
      return 0;
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      if (dir == null) {
        ContentionRunner.deleteRecursively(root);
      }
    }
  }

  /** The change-feed rows, rotated, --runs rounds. */
  private Map<String, List<IngestFeedRows.Sample>> feedRounds(ActorSystem<?> system, IngestRecords data, Path root) throws Exception {
    IngestFeedRows feedRows = new IngestFeedRows(system, settings(system, blindWrites, null),
        IngestSettings.defaults().withMaxRecords(feedBatch).withParallelism(parallelism), data, feedRecords);
    List<String> names = IngestFeedRows.NAMES;
    Map<String, List<IngestFeedRows.Sample>> feed = new LinkedHashMap<>();
    names.forEach(r -> feed.put(r, new ArrayList<>()));
    for (int run = 0; run < runs; run++) {
      for (int i = 0; i < names.size(); i++) {
        String row = names.get((i + run) % names.size());
        Path path = nextCell(root);
        try {
          IngestFeedRows.Sample s = feedRows.measure(row, path);
          feed.get(row).add(s);
          out.println(IngestFeedRows.line(run + 1, row, s));
        } finally {
          ContentionRunner.deleteRecursively(path);
        }
      }
    }
    return feed;
  }

  /** Every name --rows takes. */
  private static final List<String> ROWS = List.of("sink", "sink-ordered", "flow", "raw", "matrix", "fairness");

  /** The row that --rows calls {@code name} (a single row: not matrix or fairness). */
  private static String rowName(String name) {
    return switch (name) {
      case "sink" -> IngestSinkRow.NAME;
      case "sink-ordered" -> IngestSinkRow.ORDERED;
      case "flow" -> IngestFlowRow.NAME;
      case "raw" -> IngestRawRow.NAME;
      default -> throw new IllegalArgumentException("not a single row: " + name); // validate() refused unknown names
    };
  }

  private IngestRow row(ActorSystem<?> system, String row, IngestRecords data) {
    return switch (row) {
      case IngestSinkRow.NAME -> new IngestSinkRow(system, settings(system, blindWrites, null), sink(parallelism), data);
      case IngestSinkRow.ORDERED -> new IngestSinkRow(system, settings(system, "ordered", null), sink(orderedParallelism), data);
      case IngestFlowRow.NAME -> new IngestFlowRow(system, settings(system, blindWrites, null), flowParallelism, data);
      case IngestRawRow.NAME -> new IngestRawRow(batch, data);
      default -> throw new IllegalArgumentException(row);
    };
  }

  /** The sink's transactions: at most --batch records and --max-bytes, {@code inFlight} of them at once. */
  private IngestSettings sink(int inFlight) {
    return IngestSettings.defaults().withMaxRecords(batch).withMaxBytes(maxBytes).withParallelism(inFlight);
  }

  /** One measurement of {@code row} in a fresh database, deleted afterwards. */
  private IngestSample ingest(IngestRow row, int n, Path root) throws Exception {
    Path path = nextCell(root);
    try {
      return row.ingest(n, path);
    } finally {
      ContentionRunner.deleteRecursively(path);
    }
  }

  private Path nextCell(Path root) {
    return root.resolve("cell-" + (cells++));
  }

  /** A --matrix-queue-capacity value: null for the setting's default. */
  static Integer capacity(String value) {
    return value.equals("default") ? null : Integer.valueOf(value);
  }

  /** The settings of every commitlane row: WAL off, --commit-threads, the blind-write policy and, if given, a queue capacity. */
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

  private void validate() {
    for (String name : rowNames) {
      if (!ROWS.contains(name)) {
        throw Checks.usage("--rows: unknown row '" + name + "'; known: " + String.join(", ", ROWS));
      }
    }
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
