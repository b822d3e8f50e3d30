package io.commitlane.bench.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Runs one variant under one load on a fresh database: threads commit transactions of random keys
 * (8-byte keys drawn from a key space, one value size) for a warm-up, then for the measured
 * window. Counters and the latency recorder are sampled at the window's edges, so the workers
 * never pause.
 */
public final class ContentionRunner {
  private final int keySpace;
  private final CommitValues values;
  private final double warmupSeconds;
  private final double seconds;

  public ContentionRunner(int keySpace, int valueSize, double warmupSeconds, double seconds) {
    this(keySpace, CommitValues.fixed(valueSize), warmupSeconds, seconds);
  }

  public ContentionRunner(int keySpace, CommitValues values, double warmupSeconds, double seconds) {
    this.keySpace = keySpace;
    this.values = values;
    this.warmupSeconds = warmupSeconds;
    this.seconds = seconds;
  }

  public Measurement run(CommitVariant variant, Load load, Path dir) throws Exception {
    return run(variant, load, dir, WindowListener.NONE);
  }

  /** As {@link #run(CommitVariant, Load, Path)}, telling {@code listener} when the measured window opens and closes. */
  public Measurement run(CommitVariant variant, Load load, Path dir, WindowListener listener) throws Exception {
    Files.createDirectories(dir);
    try (CommitVariant.Session session = variant.open(dir)) {
      return measure(session, variant.name(), load, listener);
    } finally {
      deleteRecursively(dir);
    }
  }

  /** One warm-up and window on a session the caller opened (and closes), telling {@code listener} when the window opens and closes. */
  public Measurement measure(CommitVariant.Session session, String name, Load load, WindowListener listener) throws Exception {
    AtomicLong commits = new AtomicLong();
    AtomicLong conflicts = new AtomicLong();
    Recorder latency = new Recorder(3);
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch ready = new CountDownLatch(load.threads());
    List<Thread> threads = new ArrayList<>();
    Running running = new Running();
    for (int t = 0; t < load.threads(); t++) {
      long seed = 0x5EED + t;
      CommitVariant.Worker worker = session.worker();
      Thread thread = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed);
        CommitValues.Source source = values.forWorker(random);
        byte[][] keys = new byte[load.keys()][];
        ready.countDown();
        try (worker) {
          while (running.on) {
            for (int i = 0; i < keys.length; i++) {
              keys[i] = ByteBuffer.allocate(8).putLong(random.nextInt(keySpace)).array();
            }
            long start = System.nanoTime();
            boolean ok = worker.commit(keys, source.next(random));
            latency.recordValue(System.nanoTime() - start);
            (ok ? commits : conflicts).incrementAndGet();
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "bench-" + name + "-" + t);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
    Measurement m;
    try {
      ready.await();
      pause(warmupSeconds);
      long c0 = commits.get();
      long x0 = conflicts.get();
      latency.getIntervalHistogram();
      listener.windowOpened();
      long t0 = System.nanoTime();
      pause(seconds);
      long c1 = commits.get();
      long x1 = conflicts.get();
      Histogram h = latency.getIntervalHistogram();
      double elapsed = (System.nanoTime() - t0) / 1e9;
      listener.windowClosed();
      m = new Measurement(c1 - c0, x1 - x0, elapsed, h.getValueAtPercentile(50), h.getValueAtPercentile(99));
    } finally {
      running.on = false; // also when a stop request (Ctrl-C) unwinds from pause(): the workers end before the database closes
      for (Thread t : threads) {
        t.join();
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalStateException(name + " failed under " + load, errors.get(0));
    }
    return m;
  }

  private static final class Running {
    volatile boolean on = true;
  }

  /**
   * The benchmark's clock: the measured window is timed, not slept through blindly. It wakes at
   * least every 100 ms to see a stop request (Ctrl-C), and then throws {@link StopSignal.StoppedException}.
   */
  public static void pause(double seconds) throws InterruptedException {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    for (long left; (left = end - System.nanoTime()) > 0; ) {
      StopSignal.checkpoint();
      Thread.sleep(Math.max(1, Math.min(100, left / 1_000_000))); // a benchmark's timer, not test synchronization
    }
    StopSignal.checkpoint();
  }

  public static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
