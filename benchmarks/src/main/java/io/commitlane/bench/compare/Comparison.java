package io.commitlane.bench.compare;

import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.cli.TimingOptions;
import io.commitlane.bench.cli.WorkloadOptions;
import io.commitlane.bench.harness.AsyncContentionRunner;
import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.CpuWindow;
import io.commitlane.bench.harness.FacadeCommitSyncVariant;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.Measurement;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.peers.LmdbPutVariant;
import io.commitlane.bench.peers.RawOptimisticAsyncPeer;
import io.commitlane.bench.peers.RawOptimisticVariant;
import io.commitlane.bench.peers.RawWriteBatchVariant;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * Runs {@code compare}'s cells: for each load, {@code runs} rounds, each running every variant
 * once on a fresh database, starting one variant further along each round (rotated order, so no
 * variant always runs first or right after the same neighbour). Peers run in the same process,
 * on the same keys and values: each commit writes {@code keys} random keys with one value.
 */
final class Comparison {
  /** Told before and after each cell: drives the progress line, and lets tests stop a run at a known point. */
  interface CellListener {
    CellListener NONE = new CellListener() {};

    default void cellStarted(int index, Load load, Variant variant, int round) {}

    default void cellFinished(int index, Load load, Variant variant, CompareSample sample) {}
  }

  private final ActorSystem<?> system;
  private final Map<Variant, PipelineSettings> settings;
  private final int concurrency;
  private final boolean log;
  private final boolean wal;
  private final int runs;
  private final int peerCommitThreads;
  private final boolean readFirst;
  private final ContentionRunner syncRunner;
  private final AsyncContentionRunner asyncRunner;
  private final RawOptimisticAsyncPeer rawAsync;

  /**
   * @param settings the resolved settings of every commitlane variant
   * @param concurrency commits each worker of a pipeline variant (and of the async raw peer) keeps in flight
   * @param peerCommitThreads the async raw peer's commit pool: the run's {@code commit-threads}
   * @param readFirst every commit first reads the keys it writes (through its transaction where it has one)
   */
  Comparison(ActorSystem<?> system, Map<Variant, PipelineSettings> settings, WorkloadOptions workload, TimingOptions timing,
      int concurrency, int peerCommitThreads, boolean log, boolean wal, boolean readFirst) {
    this.system = system;
    this.settings = settings;
    this.concurrency = concurrency;
    this.log = log;
    this.wal = wal;
    this.runs = timing.runs;
    this.peerCommitThreads = peerCommitThreads;
    this.readFirst = readFirst;
    this.syncRunner = new ContentionRunner(workload.keySpace, workload.valueSize, timing.warmup, timing.seconds);
    this.asyncRunner = new AsyncContentionRunner(system, workload.keySpace, workload.valueSize, timing.warmup, timing.seconds, readFirst);
    this.rawAsync = new RawOptimisticAsyncPeer(workload.keySpace, workload.valueSize, timing.warmup, timing.seconds, wal, readFirst);
  }

  /**
   * Measures every cell into {@code results}. A stop request (Ctrl-C) ends the run between or
   * inside cells with {@link StopSignal.StoppedException}; what was measured stays in {@code results}.
   */
  void run(CompareResults results, Path root, CellListener listener) throws Exception {
    List<Variant> variants = results.variants;
    int index = 0;
    for (Load load : results.loads) {
      for (int r = 0; r < runs; r++) {
        for (int i = 0; i < variants.size(); i++) {
          StopSignal.checkpoint();
          Variant v = variants.get((i + r) % variants.size());
          listener.cellStarted(index, load, v, r);
          CompareSample s = measure(v, load, r, root.resolve("cell-" + index));
          results.add(load, v, s);
          listener.cellFinished(index, load, v, s);
          index++;
        }
      }
    }
  }

  private CompareSample measure(Variant v, Load load, int round, Path dir) throws Exception {
    CpuWindow cpu = new CpuWindow();
    return switch (v.kind()) {
      case PIPELINE -> {
        PipelineSample s = asyncRunner.run(settings.get(v), load, concurrency, log, dir, cpu);
        yield new CompareSample(round, s.commits(), cpu.nanosPer(s.commits().commits()), s.executorsStarted());
      }
      case LEGACY -> {
        PipelineSample s = asyncRunner.blockingOn(system.dispatchers().lookup(DispatcherSelector.defaultDispatcher()))
            .run(settings.get(v), load, concurrency, log, dir, cpu);
        yield new CompareSample(round, s.commits(), cpu.nanosPer(s.commits().commits()), s.executorsStarted());
      }
      case COMMIT_SYNC -> synchronous(new FacadeCommitSyncVariant(v.label(), system, settings.get(v), log, readFirst), load, round, dir, cpu);
      case RAW_OPTIMISTIC -> synchronous(new RawOptimisticVariant(wal, readFirst), load, round, dir, cpu);
      case RAW_OPTIMISTIC_ASYNC -> {
        PipelineSample s = rawAsync.run(load, concurrency, peerCommitThreads, dir, cpu);
        yield new CompareSample(round, s.commits(), cpu.nanosPer(s.commits().commits()), s.executorsStarted());
      }
      case RAW_WRITE -> synchronous(new RawWriteBatchVariant(wal, readFirst), load, round, dir, cpu);
      case LMDB -> synchronous(new LmdbPutVariant(readFirst), load, round, dir, cpu);
    };
  }

  private CompareSample synchronous(CommitVariant variant, Load load, int round, Path dir, CpuWindow cpu) throws Exception {
    Measurement m = syncRunner.run(variant, load, dir, cpu);
    return new CompareSample(round, m, cpu.nanosPer(m.commits()), -1);
  }
}
