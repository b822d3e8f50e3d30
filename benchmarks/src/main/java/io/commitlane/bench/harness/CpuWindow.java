package io.commitlane.bench.harness;

import java.lang.management.ManagementFactory;

/**
 * CPU time of the whole process (every thread: workers, executors, dispatchers, RocksDB's own)
 * over a measured window. Divided by commits it is what a loaded machine pays per commit, which
 * commits/s alone hides when a variant burns a second core to go faster.
 */
public final class CpuWindow implements WindowListener {
  private long start = -1;
  private long nanos = -1;

  public static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
  }

  @Override
  public void windowOpened() {
    start = processCpuNanos();
  }

  @Override
  public void windowClosed() {
    long end = processCpuNanos();
    nanos = start < 0 || end < 0 ? -1 : end - start;
  }

  /** CPU nanoseconds per unit of work in the window; NaN when unknown or nothing was done. */
  public double nanosPer(long work) {
    return nanos < 0 || work <= 0 ? Double.NaN : (double) nanos / work;
  }
}
