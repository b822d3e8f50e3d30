package io.commitlane.bench.ingest;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.CommitFlow;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.WriteRequest;
import io.commitlane.bench.harness.CpuWindow;
import java.nio.file.Path;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/** commitlane's commit flow ({@link CommitFlow#unordered}): one record per transaction, {@code parallelism} requests in flight. */
final class IngestFlowRow implements IngestRow {
  static final String NAME = "commit flow, 1 record/txn";

  private final ActorSystem<?> system;
  private final PipelineSettings settings;
  private final int parallelism;
  private final IngestRecords records;

  IngestFlowRow(ActorSystem<?> system, PipelineSettings settings, int parallelism, IngestRecords records) {
    this.system = system;
    this.settings = settings;
    this.parallelism = parallelism;
    this.records = records;
  }

  @Override
  public IngestSample ingest(int n, Path path) throws Exception {
    try (CommitlaneDatabase db = Commitlane.get(system).open(path, settings)) {
      CommitFlowSettings s = CommitFlowSettings.defaults().withParallelism(parallelism);
      long cpu = CpuWindow.processCpuNanos();
      long start = System.nanoTime();
      long committed = IngestRow.await(Source.range(0, n - 1)
          .map(i -> WriteRequest.builder(i).put(IngestRecords.key(i), records.value(i)).build())
          .via(CommitFlow.unordered(db, s))
          .runWith(Sink.fold(0L, (sum, o) -> o.isCommitted() ? sum + 1 : sum), system));
      long nanos = System.nanoTime() - start;
      cpu = CpuWindow.processCpuNanos() - cpu;
      IngestRow.check(committed == n, "the commit flow committed " + committed + " of " + n + " records");
      return new IngestSample(n, nanos, n, cpu, db.stats().conflicts());
    }
  }
}
