package io.commitlane.bench.pipeline;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.PipelineMode;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.WriteGroupSettings;
import io.commitlane.bench.harness.AsyncContentionRunner;
import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.DispatcherProbe;
import io.commitlane.bench.harness.FacadeCommitSyncVariant;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.WindowListener;
import io.commitlane.bench.peers.RawOptimisticAsyncPeer;
import io.commitlane.bench.peers.RawOptimisticVariant;
import io.commitlane.bench.pipeline.Row.Committer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * Every row the pipeline bench can measure, as a trial bound to the run's one actor system. All
 * commitlane rows use the system's {@code commitlane} settings with the WAL as chosen (off by
 * default, and the same for the raw peer); only the mode (and write groups) differ between rows.
 * The legacy rows are blocking commits as a peer: {@code commitSync(txn)} as a task on the
 * system's default dispatcher, each occupying one of its threads for the whole commit.
 */
public final class PipelineTrials {
  private final ActorSystem<?> system;
  private final PipelineSettings threads;
  private final PipelineSettings unmerged;
  private final ContentionRunner syncRunner;
  private final AsyncContentionRunner asyncRunner;
  private final AsyncContentionRunner blockingRunner;
  private final RawOptimisticAsyncPeer rawAsync;
  private final double warmupSeconds;
  private final double seconds;
  private final Duration probePeriod;
  private final boolean wal;

  PipelineTrials(ActorSystem<?> system, int keySpace, int valueSize, double warmupSeconds, double seconds, Duration probePeriod,
      boolean wal) {
    this.system = system;
    this.wal = wal;
    this.threads = settings(system, PipelineMode.THREADS, wal);
    this.unmerged = threads.withWriteGroups(WriteGroupSettings.off());
    this.syncRunner = new ContentionRunner(keySpace, valueSize, warmupSeconds, seconds);
    this.asyncRunner = new AsyncContentionRunner(system, keySpace, valueSize, warmupSeconds, seconds);
    this.blockingRunner = asyncRunner.blockingOn(system.dispatchers().lookup(DispatcherSelector.defaultDispatcher()));
    this.rawAsync = new RawOptimisticAsyncPeer(keySpace, valueSize, warmupSeconds, seconds, wal);
    this.warmupSeconds = warmupSeconds;
    this.seconds = seconds;
    this.probePeriod = probePeriod;
  }

  /** The system's {@code commitlane} settings with this mode and RocksDB's WAL on or off. */
  public static PipelineSettings settings(ActorSystem<?> system, PipelineMode mode, boolean wal) {
    Map<String, Object> overrides = Map.of("mode", mode.settingName(), "wal", wal);
    return PipelineSettings.fromConfig(ConfigFactory.parseMap(overrides).atPath(PipelineSettings.ROOT).withFallback(system.settings().config()));
  }

  /** The threads-mode settings, as every commitlane row uses them (the legacy rows bypass its pipeline). */
  PipelineSettings threadsSettings() {
    return threads;
  }

  /**
   * {@code commit(txn)} from plain threads, each keeping {@code inFlight} commits in flight (for
   * the legacy rows, blocking {@code commitSync} tasks on the default dispatcher instead).
   */
  Trial<PipelineSample> async(Committer mode, Load load, int inFlight, boolean log) {
    PipelineSettings settings = settingsOf(mode);
    AsyncContentionRunner runner = runnerOf(mode);
    return new Trial<>(new Row(mode, inFlight, log),
        dir -> runner.run(settings, load, inFlight, log, dir, WindowListener.NONE));
  }

  /** {@code commitSync(txn)} on each worker thread: one commit in flight per thread, no hand-off. */
  Trial<PipelineSample> commitSync(Load load, boolean log) {
    CommitVariant variant = new FacadeCommitSyncVariant(Committer.COMMIT_SYNC.label, system, threads, log);
    return new Trial<>(new Row(Committer.COMMIT_SYNC, 1, log), dir -> PipelineSample.withoutPipeline(syncRunner.run(variant, load, dir)));
  }

  /** The peer: rocksdbjni's {@code OptimisticTransactionDB} from the same number of plain threads. */
  Trial<PipelineSample> rawOptimistic(Load load) {
    CommitVariant variant = new RawOptimisticVariant(wal);
    return new Trial<>(new Row(Committer.RAW_OPTIMISTIC, 1, false), dir -> PipelineSample.withoutPipeline(syncRunner.run(variant, load, dir)));
  }

  /**
   * The asynchronous peer: raw {@code OptimisticTransactionDB} commits on a pool of as many threads as
   * commitlane's executors ({@code commit-threads}), {@code inFlight} per worker.
   */
  Trial<PipelineSample> rawOptimisticAsync(Load load, int inFlight) {
    return new Trial<>(new Row(Committer.RAW_OPTIMISTIC_ASYNC, inFlight, false),
        dir -> rawAsync.run(load, inFlight, threads.commitThreads(), dir, WindowListener.NONE));
  }

  /** The default-dispatcher probe while nothing commits: the floor of a task hand-off here. */
  Trial<ProbeSample> probeIdle() {
    return new Trial<>(new Row(Committer.IDLE, 0, false), dir -> {
      try (DispatcherProbe probe = DispatcherProbe.start(defaultDispatcher(), probePeriod)) {
        ContentionRunner.pause(warmupSeconds);
        probe.windowOpened();
        ContentionRunner.pause(seconds);
        probe.windowClosed();
        return probeSample(probe.window(), null);
      }
    });
  }

  /** The default-dispatcher probe during an asynchronous burst of commits in this mode. */
  Trial<ProbeSample> probeDuring(Committer mode, Load load, int inFlight) {
    PipelineSettings settings = settingsOf(mode);
    AsyncContentionRunner runner = runnerOf(mode);
    return new Trial<>(new Row(mode, inFlight, false), dir -> {
      try (DispatcherProbe probe = DispatcherProbe.start(defaultDispatcher(), probePeriod)) {
        PipelineSample burst = runner.run(settings, load, inFlight, false, dir, probe);
        return probeSample(probe.window(), burst);
      }
    });
  }

  private Executor defaultDispatcher() {
    return system.dispatchers().lookup(DispatcherSelector.defaultDispatcher());
  }

  private static ProbeSample probeSample(Histogram waits, PipelineSample burst) {
    return new ProbeSample(waits.getValueAtPercentile(50), waits.getValueAtPercentile(99), waits.getTotalCount(), burst);
  }

  private AsyncContentionRunner runnerOf(Committer mode) {
    return mode == Committer.LEGACY ? blockingRunner : asyncRunner;
  }

  private PipelineSettings settingsOf(Committer mode) {
    return switch (mode) {
      case THREADS, LEGACY -> threads;
      case UNMERGED -> unmerged;
      default -> throw new IllegalArgumentException(mode + " does not commit through the pipeline");
    };
  }
}
