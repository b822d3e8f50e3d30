package io.commitlane.cluster.internal.entity;

import io.commitlane.cluster.internal.owner.OwnerLock;
import io.commitlane.cluster.internal.owner.OwnerSession;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * One attempt to open an entity's database as its owner, on the blocking dispatcher: take the
 * {@link OwnerLock}, then open the database under it. What it opened waits in a slot for the
 * entity to {@link #take} on its own thread. If the entity stops while the attempt runs, its
 * PostStop {@link #abandon}s the attempt: whichever of the two comes second finds the database
 * in the slot and closes it, and the slot hands it to one of them only.
 */
public final class OpenAttempt {
  private final Executor blocking;
  private final AtomicReference<OwnerSession> opened = new AtomicReference<>();
  private final AtomicBoolean abandoned = new AtomicBoolean();

  public OpenAttempt(Executor blocking) {
    this.blocking = blocking;
  }

  /**
   * Run the attempt on the blocking dispatcher: true when the database is open and waits in the
   * slot, false when another owner holds its lock. {@code system} comes from the caller: the
   * actor's context belongs to the actor's thread, not the blocking one.
   */
  CompletableFuture<Boolean> start(ActorSystem<?> system, Path dir, String owner, PipelineSettings settings) {
    return CompletableFuture.supplyAsync(() -> {
      OwnerLock lock = OwnerLock.tryAcquire(dir, owner);
      if (lock == null) {
        return false;
      }
      CommitlaneDatabase db;
      try {
        db = Commitlane.get(system).open(dir, settings);
      } catch (RuntimeException | Error e) {
        lock.close();
        throw e;
      }
      opened.set(new OwnerSession(db, lock));
      if (abandoned.get()) {
        closeLeftover(); // the entity stopped while this attempt ran: nobody else will close it
      }
      return true;
    }, blocking);
  }

  /** What this attempt opened, for the entity to own; null if its PostStop already took it. */
  OwnerSession take() {
    return opened.getAndSet(null);
  }

  /** The entity stopped: close what this attempt opened, now or when it finishes. */
  void abandon() {
    abandoned.set(true);
    closeLeftover();
  }

  /** Close a database this attempt opened after its entity stopped (at most one caller gets it). */
  private void closeLeftover() {
    OwnerSession leftover = opened.getAndSet(null);
    if (leftover != null) {
      leftover.close(blocking);
    }
  }
}
