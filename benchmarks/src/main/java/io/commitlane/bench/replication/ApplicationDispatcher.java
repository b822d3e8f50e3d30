package io.commitlane.bench.replication;

import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.bench.harness.DispatcherProbe;
import io.commitlane.bench.harness.ProbeSample;
import io.commitlane.bench.harness.WindowListener;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * An application's Pekko actor system beside the replicas: in this JVM, so its default dispatcher
 * shares the cores with every replica node's threads (Ratis, gRPC, the completion threads) and with
 * the load's clients, as an application's would. Each measured cell times a trivial task submitted
 * to that dispatcher every {@link #PERIOD} ({@link DispatcherProbe}), replicated, etcd and single
 * owner alike: etcd's cells give the machine's baseline under a comparable load.
 *
 * <p>The replicated handle's commit path runs on no Pekko dispatcher (the replication module has no
 * Pekko in it), so the probe measures what the replicated database's threads leave to an
 * application's dispatcher on the same cores.
 */
final class ApplicationDispatcher implements AutoCloseable {
  static final Duration PERIOD = Duration.ofMillis(1);
  /** The goal: a replicated commit never blocks a dispatcher, so the probe's p99 stays at most this during the load. */
  static final double GOAL_P99_NANOS = 1_000_000;

  private final ActorSystem<Void> system;

  private ApplicationDispatcher(ActorSystem<Void> system) {
    this.system = system;
  }

  static ApplicationDispatcher start() {
    return new ApplicationDispatcher(BenchSystem.start("bench-replication-application", BenchSystem.config()));
  }

  /** A probe for one cell, ticking from now until closed; pass it (as a {@link WindowListener}) to the cell's window. */
  Cell cell() {
    return new Cell(DispatcherProbe.start((Executor) system.executionContext(), PERIOD));
  }

  @Override
  public void close() throws Exception {
    BenchSystem.stop(system);
  }

  /** The probe of one measured cell: only tasks submitted inside the window count. */
  static final class Cell implements WindowListener, AutoCloseable {
    private final DispatcherProbe probe;
    private ProbeSample sample;

    private Cell(DispatcherProbe probe) {
      this.probe = probe;
    }

    @Override
    public void windowOpened() {
      probe.windowOpened();
    }

    @Override
    public void windowClosed() throws InterruptedException {
      probe.windowClosed();
      Histogram h = probe.window();
      sample = h.getTotalCount() == 0 ? null
          : new ProbeSample(h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getTotalCount(), null);
    }

    /** The window's waits; null before it closed or if no task ran in it. */
    ProbeSample sample() {
      return sample;
    }

    @Override
    public void close() throws InterruptedException {
      probe.close();
    }
  }
}
