package io.commitlane.bench.memory;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.bench.harness.BenchTransactions;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.Load;
import io.commitlane.bench.harness.StopSignal;
import io.commitlane.storage.StorageStats;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What validation holds in a busy database: workers commit random keys through the pipeline
 * ({@code commit(txn)}, {@code inFlight} each, the build's settings, WAL off; with {@code
 * readFirst} each reads its keys first, so it holds a baseline the record must serve) while the version
 * table's chunks and the recent-writes record's slots are sampled every 20 ms
 * ({@link StorageStats#validationBytes()}); the peak is reported.
 */
final class BusyValidationMemory {
  private static final long SAMPLE_MILLIS = 20;

  /** The largest sample and the record's share of it. */
  record Peak(long validationBytes, long recentWriteSlots, long commits) {}

  private BusyValidationMemory() {}

  static Peak measure(ActorSystem<?> system, PipelineSettings settings, Load load, int inFlight, boolean readFirst, double seconds,
      int keySpace, int valueSize, Path dir) throws Exception {
    Files.createDirectories(dir);
    try {
      CommitlaneDatabase db = Commitlane.get(system).open(dir, settings);
      try {
        return run(db, load, inFlight, readFirst, seconds, keySpace, valueSize);
      } finally {
        db.close();
      }
    } finally {
      ContentionRunner.deleteRecursively(dir);
    }
  }

  private static Peak run(CommitlaneDatabase db, Load load, int inFlight, boolean readFirst, double seconds, int keySpace, int valueSize)
      throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Running running = new Running();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < load.threads(); t++) {
      long seed = 0x5EED + t;
      workers.add(new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] value = new byte[valueSize];
        Semaphore slots = new Semaphore(inFlight);
        try {
          while (running.on) {
            slots.acquire();
            byte[][] keys = new byte[load.keys()][];
            for (int i = 0; i < keys.length; i++) {
              keys[i] = ByteBuffer.allocate(8).putLong(random.nextInt(keySpace)).array();
            }
            db.commit(BenchTransactions.begin(db, keys, value, false, readFirst)).whenComplete((r, e) -> slots.release());
          }
          if (!slots.tryAcquire(inFlight, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("commits still in flight 60 s after the run ended");
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "bench-busy-" + t));
    }
    workers.forEach(Thread::start);
    long peakBytes = 0;
    long peakSlots = 0;
    try {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      while (System.nanoTime() < end) {
        StopSignal.checkpoint();
        Thread.sleep(SAMPLE_MILLIS); // a sampling period, not test synchronization
        StorageStats s = db.storage().stats();
        if (s.validationBytes() > peakBytes) {
          peakBytes = s.validationBytes();
          peakSlots = s.recentWriteSlots();
        }
      }
    } finally {
      running.on = false;
      for (Thread w : workers) {
        w.join();
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("busy database failed under " + load, failure.get());
    }
    return new Peak(peakBytes, peakSlots, db.storage().stats().commits());
  }

  private static final class Running {
    volatile boolean on = true;
  }
}
