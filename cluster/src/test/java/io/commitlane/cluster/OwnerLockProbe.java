package io.commitlane.cluster;

import io.commitlane.cluster.internal.owner.OwnerLock;
import io.commitlane.cluster.internal.owner.OwnerLockTest;
import io.commitlane.testkit.CrashWorkload;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Run in a child process by {@link OwnerLockTest}: tries to take the owner lock of the database
 * directory, reports {@code acquired} or {@code refused}, then {@code tried}, and holds whatever it
 * got until it is killed.
 */
public final class OwnerLockProbe implements CrashWorkload {
  @Override
  public void run(Path dir, List<String> args, Reporter reporter) throws Exception {
    OwnerLock lock = OwnerLock.tryAcquire(dir, "child-process");
    reporter.reached(lock == null ? "refused" : "acquired");
    reporter.reached("tried");
    new CountDownLatch(1).await();
  }
}
