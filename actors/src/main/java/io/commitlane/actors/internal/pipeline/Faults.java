package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.internal.log.DeadRecords;

/**
 * Failure (and pause) points of the pipeline that this module's tests can arm: each is checked
 * where the real failure would surface. Disarmed, each costs a volatile read where it is checked. Not
 * public: no user or other module can make a database fail on purpose.
 */
public final class Faults {
  private volatile int failExecutorStartsFrom = Integer.MAX_VALUE;
  private volatile boolean failDeadMarkers;
  private volatile boolean failDeadMarkerFlushes;
  private volatile Runnable beforeLogCopy;

  /** Executors numbered {@code n} and above fail to start, as if no thread could be created. */
  public void failExecutorStartsFrom(int n) {
    failExecutorStartsFrom = n;
  }

  /** Making a failed commit's log record dead ({@link DeadRecords}) fails, as if RocksDB could not write. */
  public void failDeadMarkers() {
    failDeadMarkers = true;
  }

  /** The dead marker of a failed commit's log record is written, but the flush that makes it durable fails. */
  public void failDeadMarkerFlushes() {
    failDeadMarkerFlushes = true;
  }

  /**
   * {@code pause} runs where a checkpoint or backup starts copying the logs, after RocksDB's files
   * were captured, on the thread that takes the copy: a test holds the copy there (to close the
   * database under it, or to see which thread runs it).
   */
  public void pauseBeforeLogCopy(Runnable pause) {
    beforeLogCopy = pause;
  }

  public void reset() {
    failExecutorStartsFrom = Integer.MAX_VALUE;
    failDeadMarkers = false;
    failDeadMarkerFlushes = false;
    beforeLogCopy = null;
  }

  public void beforeLogCopy() {
    Runnable pause = beforeLogCopy;
    if (pause != null) {
      pause.run();
    }
  }

  public void beforeDeadMarker() {
    if (failDeadMarkers) {
      throw new IllegalStateException("injected: cannot write the replay marker of a failed commit");
    }
  }

  public void beforeDeadMarkerFlush() {
    if (failDeadMarkerFlushes) {
      throw new IllegalStateException("injected: cannot flush the dead marker of a failed commit");
    }
  }

  public void beforeExecutorStart(int n) {
    if (n >= failExecutorStartsFrom) {
      throw new IllegalStateException("injected: cannot start a thread for commit executor " + n);
    }
  }
}
