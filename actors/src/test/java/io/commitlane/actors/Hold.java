package io.commitlane.actors;

import io.commitlane.storage.CommitStage;
import io.commitlane.storage.Database;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.testkit.Barrier;
import io.commitlane.testkit.StageControl;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * The stream tests' name for a testkit {@link Barrier} on its own {@link StageControl}: holds
 * matching commits at a stage until released. New tests use StageControl and Barrier directly.
 */
public final class Hold implements AutoCloseable {
  private final StageControl control;
  private final Barrier barrier;

  public Hold(Database db, CommitStage stage, Predicate<PendingCommit> which) {
    this.control = StageControl.install(db);
    this.barrier = control.barrier(stage, which);
  }

  public void awaitArrivals(int n) {
    barrier.awaitArrivals(n, Duration.ofSeconds(30));
  }

  public int holding() {
    return barrier.holding();
  }

  public void release() {
    barrier.release();
  }

  @Override
  public void close() {
    control.close();
  }
}
