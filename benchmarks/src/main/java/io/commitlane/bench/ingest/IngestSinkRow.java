package io.commitlane.bench.ingest;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.bench.harness.CpuWindow;
import java.nio.file.Path;
import org.apache.pekko.actor.typed.ActorSystem;

/** commitlane's batching ingest sink ({@link Ingest#sink}): records in transactions of a bounded size, some in flight at once. */
final class IngestSinkRow implements IngestRow {
  static final String NAME = "ingest sink";
  static final String ORDERED = "ingest sink, blind writes ordered";

  private final ActorSystem<?> system;
  private final PipelineSettings settings;
  private final IngestSettings sink;
  private final IngestRecords records;

  IngestSinkRow(ActorSystem<?> system, PipelineSettings settings, IngestSettings sink, IngestRecords records) {
    this.system = system;
    this.settings = settings;
    this.sink = sink;
    this.records = records;
  }

  /** The name of a matrix row: its sink parallelism and queue capacity (null: the setting's default). */
  static String matrixName(int parallelism, Integer capacity) {
    return "ingest sink p" + parallelism + " q" + (capacity == null ? "default" : capacity);
  }

  @Override
  public IngestSample ingest(int n, Path path) throws Exception {
    try (CommitlaneDatabase db = Commitlane.get(system).open(path, settings)) {
      long cpu = CpuWindow.processCpuNanos();
      long start = System.nanoTime();
      IngestTotals t = IngestRow.await(records.range(0, n - 1).runWith(Ingest.sink(db, sink), system));
      long nanos = System.nanoTime() - start;
      cpu = CpuWindow.processCpuNanos() - cpu;
      IngestRow.check(t.records() == n, "the ingest sink committed " + t.records() + " of " + n + " records");
      return new IngestSample(n, nanos, t.transactions(), cpu, db.stats().conflicts());
    }
  }
}
