package io.commitlane.bench.contention;

import com.typesafe.config.Config;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.DispatcherProbe;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.harness.WindowListener;
import io.commitlane.bench.harness.WorkerGroup;
import io.commitlane.bench.report.Units;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * one-db, four-db, mixed-sync, conflict and probe: groups of async workers (each keeping
 * {@code concurrency} commits in flight) and commitSync workers on every database, measured over
 * one window. They differ only in their {@link BenchShape}, except that probe also times a trivial
 * task on Pekko's default dispatcher and conflict commits {@link BenchCounters} and checks them.
 */
final class BenchPipelineScenario implements BenchScenario {
  /** What the scenario adds to the plain worker groups. */
  enum Extra { NONE, DISPATCHER_PROBE, COUNTERS }

  private final BenchShape shape;
  private final Extra extra;
  private final PipelineSettings settings;
  private final Config config;
  private final int concurrency;
  private final int valueSize;
  private final boolean log;
  private final TimingOptions timing;
  private final boolean progress;

  BenchPipelineScenario(BenchShape shape, Extra extra, PipelineSettings settings, Config config, int concurrency, int valueSize,
      boolean log, TimingOptions timing, boolean progress) {
    this.shape = shape;
    this.extra = extra;
    this.settings = settings;
    this.config = config;
    this.concurrency = concurrency;
    this.valueSize = valueSize;
    this.log = log;
    this.timing = timing;
    this.progress = progress;
  }

  @Override
  public Map<String, Object> measure(Path cell) throws Exception {
    try (BenchDatabases run = BenchDatabases.open(config, settings, shape.databases(), cell)) {
      List<CommitlaneDatabase> dbs = run.databases();
      WorkerGroup.TransactionMaker maker = extra == Extra.COUNTERS ? BenchCounters.readModifyWrite(shape.keys(), shape.keySpace())
          : WorkerGroup.blindWrites(shape.keys(), shape.keySpace(), log);
      List<WorkerGroup> groups = new ArrayList<>();
      for (int d = 0; d < dbs.size(); d++) {
        if (shape.async() > 0) {
          groups.add(new WorkerGroup("async", dbs.get(d), shape.async(), concurrency, maker, valueSize, 0x5EED + 1000L * d));
        }
        if (shape.sync() > 0) {
          groups.add(new WorkerGroup("commitSync", dbs.get(d), shape.sync(), 0, maker, valueSize, 0x5EED + 1000L * d + 500));
        }
      }
      DispatcherProbe probe = extra == Extra.DISPATCHER_PROBE
          ? DispatcherProbe.start(run.system().dispatchers().lookup(DispatcherSelector.defaultDispatcher()), Duration.ofMillis(1)) : null;
      try {
        Map<String, Object> result = window(groups, probe == null ? WindowListener.NONE : probe, dbs);
        if (probe != null) {
          Histogram w = probe.window();
          result.put("probeP50Micros", w.getValueAtPercentile(50) / 1000.0);
          result.put("probeP99Micros", w.getValueAtPercentile(99) / 1000.0);
          result.put("probes", w.getTotalCount());
          result.put("summary", result.get("summary") + String.format(Locale.ROOT, "; default-dispatcher probe p50 %s µs, p99 %s µs (%d probes)",
              Units.micros(w.getValueAtPercentile(50)), Units.micros(w.getValueAtPercentile(99)), w.getTotalCount()));
        }
        if (extra == Extra.COUNTERS) {
          BenchCounters.check(result, groups, dbs.get(0), shape);
        }
        return result;
      } finally {
        if (probe != null) {
          probe.close();
        }
      }
    }
  }

  /** Starts every group, warms up, measures one window, stops them (waiting for commits in flight). */
  private Map<String, Object> window(List<WorkerGroup> groups, WindowListener also, List<CommitlaneDatabase> dbs) throws Exception {
    CountDownLatch ready = new CountDownLatch(groups.stream().mapToInt(WorkerGroup::threads).sum());
    CpuWindow cpu = new CpuWindow();
    WindowListener listener = cpu.and(also);
    Map<String, WorkerGroup.Result> byLabel = new LinkedHashMap<>();
    int executors = 0;
    try (ProgressLine line = ProgressLine.start(System.err, progress, new BenchWindowStatus(timing)::status)) {
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
}
