package io.commitlane.testkit;

import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Inside a {@link CrashWorkload}: stop the {@code nth} commit (counting from 1) at a stage,
 * report the marker {@code STAGE:nth} and wait there forever, so the harness's kill lands at
 * exactly that point (for example after the log append and before the RocksDB write).
 */
public final class CrashPoints {
  private CrashPoints() {}

  public static void holdAt(Database db, CommitStage stage, int nth, CrashWorkload.Reporter reporter) {
    AtomicInteger seen = new AtomicInteger();
    db.addStageListener((s, c) -> {
      if (s == stage && seen.incrementAndGet() == nth) {
        reporter.reached(marker(stage, nth));
        while (true) {
          LockSupport.park(); // held until the harness kills the process
        }
      }
    });
  }

  public static String marker(CommitStage stage, int nth) {
    return stage + ":" + nth;
  }
}
