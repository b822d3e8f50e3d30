package io.commitlane.txlog;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A manual measurement, not a test: appends (and finishes) 100-byte records from several threads
 * under PROCESS durability and prints records per second. Run with
 * {@code java -cp target/classes:target/test-classes io.commitlane.txlog.AppendThroughput [threads] [records] [durability]}.
 */
public final class AppendThroughput {
  private AppendThroughput() {}

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int records = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Durability durability = args.length > 2 ? Durability.valueOf(args[2]) : Durability.PROCESS;
    for (int round = 0; round < 3; round++) {
      Path dir = Files.createTempDirectory("txlog-throughput");
      LogSettings settings = LogSettings.builder().durability(durability).build();
      try (TransactionLog log = TransactionLog.open(dir, settings)) {
        int perThread = records / threads;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int id = t;
          workers.add(new Thread(() -> {
            List<ByteBuffer> entries = List.of(ByteBuffer.allocateDirect(100));
            MonotonicClock clock = new MonotonicClock();
            try {
              start.await();
            } catch (InterruptedException e) {
              return;
            }
            for (int i = 0; i < perThread; i++) {
              long p = log.append(id * 10_000_000L + i, clock.next(), entries, null);
              log.finish(p, () -> 0);
              if (durability == Durability.FSYNC) {
                log.awaitDurable(p);
              }
            }
          }));
        }
        workers.forEach(Thread::start);
        long t0 = System.nanoTime();
        start.countDown();
        for (Thread w : workers) {
          w.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        LogStats stats = log.stats();
        System.out.printf("round %d: %d threads, %d records in %.2f s = %,.0f records/s"
                + " (%d segments, %.1f records/fsync)%n", round, threads, perThread * threads,
            seconds, perThread * threads / seconds, stats.segmentFiles(), stats.recordsPerFsync());
      } finally {
        try (var files = Files.list(dir)) {
          for (Path f : (Iterable<Path>) files::iterator) {
            Files.delete(f);
          }
        }
        Files.delete(dir);
      }
    }
  }
}
