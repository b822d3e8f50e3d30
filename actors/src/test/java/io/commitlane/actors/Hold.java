package io.commitlane.actors;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.PendingCommit;
import io.commitlane.storage.StageListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A barrier on the storage stage seam for this module's own tests (the testkit module builds on
 * this module, so it cannot be used here): holds matching commits at a stage until released.
 */
public final class Hold implements StageListener, AutoCloseable {
  private final CommitStage stage;
  private final Predicate<PendingCommit> which;
  private final Semaphore arrivals = new Semaphore(0);
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicInteger holding = new AtomicInteger();
  private final Database.Registration registration;

  public Hold(Database db, CommitStage stage, Predicate<PendingCommit> which) {
    this.stage = stage;
    this.which = which;
    this.registration = db.addStageListener(this);
  }

  @Override
  public void onStage(CommitStage s, PendingCommit c) {
    if (s != stage || released.getCount() == 0 || !which.test(c)) { // once released, later commits pass
      return;
    }
    holding.incrementAndGet();
    arrivals.release();
    try {
      assertTrue(released.await(60, TimeUnit.SECONDS), "a Hold was never released");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      holding.decrementAndGet();
    }
  }

  public void awaitArrivals(int n) throws InterruptedException {
    assertTrue(arrivals.tryAcquire(n, 30, TimeUnit.SECONDS), "fewer than " + n + " commits reached " + stage);
  }

  public int holding() {
    return holding.get();
  }

  public void release() {
    released.countDown();
  }

  @Override
  public void close() {
    release();
    registration.close();
  }
}
