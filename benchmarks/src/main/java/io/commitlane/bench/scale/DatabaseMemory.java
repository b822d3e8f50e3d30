package io.commitlane.bench.scale;

import io.commitlane.bench.dataset.RocksNumbers;
import io.commitlane.bench.harness.WindowListener;
import io.commitlane.bench.memory.MemoryProbe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.function.Supplier;

/**
 * A {@link WindowListener} that reads what one open database holds in memory as its measured
 * window closes, against a baseline taken before it opened, the way {@code memory} counts (there
 * in a fresh JVM, here in the running one): native memory, the anonymous resident memory outside
 * the Java heap (RocksDB's allocations), plus the live Java heap after a full collection
 * (commitlane's version tables and records live there). Both are taken after {@code System.gc()},
 * so a heap that grew or shrank meanwhile is not charged to the database. RocksDB's own accounts
 * (memtables, block cache, index and filter blocks) come with them.
 */
final class DatabaseMemory implements WindowListener {
  /**
   * Memory at the window's end.
   *
   * @param nativeGrowth growth of anonymous resident memory outside the committed Java heap
   * @param liveHeapGrowth growth of the Java heap in use after a full collection
   */
  record Reading(long nativeGrowth, long liveHeapGrowth, RocksNumbers rocks) {
    long total() {
      return nativeGrowth + liveHeapGrowth;
    }
  }

  private record Point(long nativeBytes, long liveHeap) {}

  private final Point baseline;
  private Supplier<RocksNumbers> numbers;
  private Reading reading;

  private DatabaseMemory(Point baseline) {
    this.baseline = baseline;
  }

  /** Takes the baseline: call before the database opens. */
  static DatabaseMemory before() {
    return new DatabaseMemory(now());
  }

  /** The open database whose numbers to read when the window closes. */
  DatabaseMemory of(Supplier<RocksNumbers> numbers) {
    this.numbers = numbers;
    return this;
  }

  @Override
  public void windowClosed() {
    RocksNumbers rocks = numbers.get();
    Point end = now();
    reading = new Reading(end.nativeBytes() - baseline.nativeBytes(), end.liveHeap() - baseline.liveHeap(), rocks);
  }

  /** Null before the window closed. */
  Reading reading() {
    return reading;
  }

  private static Point now() {
    System.gc(); // a benchmark's measurement of the live heap, as MemoryProbe takes it
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    try {
      return new Point(MemoryProbe.rssAnonBytes() - heap.getCommitted(), heap.getUsed());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
