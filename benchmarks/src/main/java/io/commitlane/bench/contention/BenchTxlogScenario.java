package io.commitlane.bench.contention;

import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.report.Units;
import io.commitlane.bench.txlog.TxlogAppendVariant;
import io.commitlane.txlog.Durability;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** txlog: {@code writers} threads append one entry per record to a transaction log directly, with the given durability. */
final class BenchTxlogScenario implements BenchScenario {
  private final int writers;
  private final Durability durability;
  private final int valueSize;
  private final TimingOptions timing;
  private final boolean progress;

  BenchTxlogScenario(int writers, Durability durability, int valueSize, TimingOptions timing, boolean progress) {
    this.writers = writers;
    this.durability = durability;
    this.valueSize = valueSize;
    this.timing = timing;
    this.progress = progress;
  }

  @Override
  public Map<String, Object> measure(Path cell) throws Exception {
    CpuWindow cpu = new CpuWindow();
    Measurement m;
    try (ProgressLine line = ProgressLine.start(System.err, progress, new BenchWindowStatus(timing)::status)) {
      m = new ContentionRunner(1, valueSize, timing.warmup, timing.seconds)
          .run(new TxlogAppendVariant(durability), new Load(writers, 1), cell, cpu);
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
}
