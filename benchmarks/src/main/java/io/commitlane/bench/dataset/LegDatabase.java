package io.commitlane.bench.dataset;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.harness.AsyncContentionRunner;
import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.FacadeCommitSyncVariant;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.PipelineSample;
import io.commitlane.bench.harness.Variant;
import io.commitlane.bench.harness.WindowListener;
import java.nio.file.Path;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * One leg's database: a fresh {@link BulkDataset#cloneTo copy} of a dataset, opened the way a
 * variant commits (the pipeline in its mode, {@code commitSync} on the workers' threads, or the
 * {@link TunedOptimisticPeer}), measured over one window, then closed and deleted. Every leg of
 * a run starts from the same bytes.
 */
public final class LegDatabase implements AutoCloseable {
  /** How every leg of a run commits: its runners, load and, for the pipeline, commits in flight per worker. */
  public record Workload(ActorSystem<?> system, ContentionRunner sync, AsyncContentionRunner async, Load load, int concurrency) {}

  private interface Measure {
    PipelineSample run(WindowListener listener) throws Exception;
  }

  /**
   * Where a run puts its legs' copies under {@code --dir}: cleared before the first leg (a run that
   * was killed may have left one) and after the last.
   */
  public static Path copies(Path dir) {
    return dir.resolve("leg-copies");
  }

  private final Path dir;
  private final java.util.function.Supplier<RocksNumbers> numbers;
  private final Measure measure;
  private final AutoCloseable close;

  private LegDatabase(Path dir, java.util.function.Supplier<RocksNumbers> numbers, Measure measure, AutoCloseable close) {
    this.dir = dir;
    this.numbers = numbers;
    this.measure = measure;
    this.close = close;
  }

  /**
   * Copies {@code dataset} into {@code dir} and opens it for {@code variant}: a pipeline mode,
   * commitSync, or blocking commitSync tasks on the default dispatcher (legacy) with {@code
   * settings}, or the raw peer with the same RocksDB tuning.
   */
  public static LegDatabase open(Variant variant, PipelineSettings settings, BulkDataset dataset, Path dir, Workload w) throws Exception {
    dataset.cloneTo(dir);
    try {
      return switch (variant.kind()) {
        case PIPELINE -> {
          CommitlaneDatabase db = Commitlane.get(w.system()).open(dir, settings);
          yield new LegDatabase(dir, () -> RocksNumbers.of(db.storage().rocksDbStats()),
              listener -> w.async().measure(db, w.load(), w.concurrency(), false, listener), db::close);
        }
        case LEGACY -> {
          CommitlaneDatabase db = Commitlane.get(w.system()).open(dir, settings);
          AsyncContentionRunner blocking = w.async().blockingOn(w.system().dispatchers().lookup(DispatcherSelector.defaultDispatcher()));
          yield new LegDatabase(dir, () -> RocksNumbers.of(db.storage().rocksDbStats()),
              listener -> blocking.measure(db, w.load(), w.concurrency(), false, listener), db::close);
        }
        case COMMIT_SYNC -> {
          CommitlaneDatabase db = Commitlane.get(w.system()).open(dir, settings);
          CommitVariant.Session session = CommitVariant.session(FacadeCommitSyncVariant.worker(db, false, false), db::close);
          yield new LegDatabase(dir, () -> RocksNumbers.of(db.storage().rocksDbStats()),
              listener -> PipelineSample.withoutPipeline(w.sync().measure(session, variant.label(), w.load(), listener)), session);
        }
        case RAW_OPTIMISTIC -> {
          TunedOptimisticPeer.Opened peer = new TunedOptimisticPeer(settings.storage().rocksDbTuning()).open(dir);
          yield new LegDatabase(dir, peer::numbers,
              listener -> PipelineSample.withoutPipeline(w.sync().measure(peer, variant.label(), w.load(), listener)), peer);
        }
        default -> throw new IllegalArgumentException(variant.label() + " does not run on a dataset copy");
      };
    } catch (Exception | Error e) {
      ContentionRunner.deleteRecursively(dir);
      throw e;
    }
  }

  /** What RocksDB reports about this database now. */
  public RocksNumbers numbers() {
    return numbers.get();
  }

  /** One warm-up and measured window of the run's load, telling {@code listener} when the window opens and closes. */
  public PipelineSample measure(WindowListener listener) throws Exception {
    return measure.run(listener);
  }

  /** Closes the database and deletes the copy. */
  @Override
  public void close() throws Exception {
    try {
      close.close();
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }
}
