package io.commitlane.cluster.internal.owner;

import io.commitlane.actors.CommitlaneDatabase;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The database this node opened as its owner, and the {@link OwnerLock} that makes it the only
 * writer: the lock is taken before the open and released only after the database was.
 */
public record OwnerSession(CommitlaneDatabase db, OwnerLock lock) {
  public long epoch() {
    return lock.epoch();
  }

  /** Drain and release the database, then the lock. The stage never fails. */
  public CompletableFuture<Void> close(Executor blocking) {
    CompletableFuture<?> closed;
    try {
      closed = db.closeAsync().toCompletableFuture();
    } catch (RuntimeException e) {
      closed = CompletableFuture.failedFuture(e);
    }
    return closed.handleAsync((ok, err) -> {
      lock.close(); // after the database, whatever its close did
      return null;
    }, blocking);
  }

  /** For an entity that stopped while a close runs: the lock goes when the close is done, or when {@code system} has terminated. */
  public void releaseLockAtTermination(ActorSystem<?> system) {
    if (lock.isHeld()) {
      // A close still runs and releases the lock when done; if the system terminates first, every
      // database supervisor has released its handle by then, so the lock can go.
      system.getWhenTerminated().whenComplete((ok, err) -> lock.close());
    }
  }
}
