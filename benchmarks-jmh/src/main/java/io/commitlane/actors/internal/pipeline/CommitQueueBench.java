package io.commitlane.actors.internal.pipeline;

import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.Transaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Control;

/**
 * The commit queue's admission and drain without executors or RocksDB writes: one thread offering
 * and polling (the per-commit cost of the queue), and a producer handing commits to a consumer
 * thread (the cross-core hand-off an executor drains). In this package because CommitQueue is
 * internal. Run: {@code ./commitlane jmh -f 1 -wi 3 -i 5 CommitQueue}.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CommitQueueBench {
  private Path dir;
  private Database db;
  private AdmissionGate gate;
  private CommitQueue queue;
  private CommitRequest request;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("commitlane-jmh-queue");
    db = Database.open(dir, DatabaseOptions.defaults().withWal(false));
    Transaction txn = db.begin(); // never committed: the queue only carries it
    txn.put(new byte[] {1}, new byte[] {1});
    gate = new AdmissionGate();
    queue = new CommitQueue(dir, 4096, 1, null);
    request = new CommitRequest(txn, new CommitRequest.Completion() {
      @Override
      public void committed(io.commitlane.storage.CommitResult result) {}

      @Override
      public void failed(Throwable cause) {}
    }, gate);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    db.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Admit and take back on one thread. */
  @Benchmark
  @Group("sameThread")
  public CommitRequest offerThenPoll() {
    queue.offer(request);
    CommitRequest r = queue.poll();
    gate.completed();
    return r;
  }

  /** Producer side of the hand-off: retries while the queue is full. */
  @Benchmark
  @Group("handoff")
  public CommitQueue.Admission offer(Control control) {
    CommitQueue.Admission a;
    while ((a = queue.offer(request)) == CommitQueue.Admission.FULL && !control.stopMeasurement) {
      Thread.onSpinWait();
    }
    return a;
  }

  /** Consumer side of the hand-off: spins until a commit arrives (or the measurement ends). */
  @Benchmark
  @Group("handoff")
  public CommitRequest poll(Control control) {
    while (!control.stopMeasurement) {
      CommitRequest r = queue.poll();
      if (r != null) {
        gate.completed();
        return r;
      }
      Thread.onSpinWait();
    }
    return null;
  }
}
