package io.commitlane.bench.contention;

import com.typesafe.config.Config;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.bench.harness.BenchTransactions;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.WorkerGroup;
import io.commitlane.bench.report.Units;
import io.commitlane.storage.KeyValue;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.stream.javadsl.Source;

/** ingest: {@code records} records through the batching ingest sink (batches of at most 1,000) into one database. */
final class BenchIngestScenario implements BenchScenario {
  private final PipelineSettings settings;
  private final Config config;
  private final int records;
  private final int parallelism;
  private final int valueSize;
  private final int keySpace;
  private final boolean progress;

  BenchIngestScenario(PipelineSettings settings, Config config, int records, int parallelism, int valueSize, int keySpace,
      boolean progress) {
    this.settings = settings;
    this.config = config;
    this.records = records;
    this.parallelism = parallelism;
    this.valueSize = valueSize;
    this.keySpace = keySpace;
    this.progress = progress;
  }

  @Override
  public Map<String, Object> measure(Path cell) throws Exception {
    try (BenchDatabases run = BenchDatabases.open(config, settings, 1, cell)) {
      CommitlaneDatabase db = run.databases().get(0);
      byte[] value = BenchTransactions.randomValue(new SplittableRandom(42), valueSize);
      long cpu0 = CpuWindow.processCpuNanos();
      long t0 = System.nanoTime();
      IngestTotals totals;
      try (ProgressLine line = ProgressLine.start(System.err, progress, () -> "bench ingest: " + records + " records")) {
        totals = Source.range(0, records - 1)
            .map(i -> new KeyValue(WorkerGroup.key(i % keySpace), value))
            .runWith(Ingest.sink(db, IngestSettings.defaults().withMaxRecords(1000).withParallelism(parallelism)), run.system())
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
  }
}
