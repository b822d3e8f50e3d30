package io.commitlane.cluster.internal.entity;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.cluster.ClusterSettings;
import io.commitlane.cluster.OwnerEpochDamagedException;
import io.commitlane.cluster.ShardedDatabase;
import io.commitlane.cluster.internal.owner.OwnerLock;
import io.commitlane.cluster.internal.owner.OwnerSession;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.cluster.ShardedDatabase.OpenResult;
import io.commitlane.cluster.ShardedDatabase.RetryOpen;
import io.commitlane.cluster.ShardedDatabase.Stop;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;

/**
 * A {@link ShardedDatabase} entity opening its database: an {@link OpenAttempt} takes the owner
 * lock and opens on the blocking dispatcher while requests wait in the stash (beyond {@code
 * open-buffer} they are answered {@code BUFFER_FULL}). While the previous owner still holds the
 * lock, it waits and tries again every {@code open-retry-interval}, up to {@code open-timeout}.
 * One instance per open: its own deadline, and its own log line while the lock is busy.
 *
 * <p>Three receives: an attempt runs ({@link #attempting}); waiting to retry a busy lock
 * ({@link #waitingToRetry}); stopped while an attempt runs, which waits for the attempt's result
 * and closes what it opened ({@link #stopping}).
 */
public final class Opening {
  private final DatabaseEntity entity;
  private final long deadline;
  private boolean lockBusyLogged;
  /** The running attempt, or the last one. */
  private OpenAttempt attempt;

  private Opening(DatabaseEntity entity) {
    this.entity = entity;
    this.deadline = System.nanoTime() + entity.settings().openTimeout().toNanos();
  }

  /** A new open: its own {@code open-timeout}, its own log line while the previous owner holds the lock. */
  public static Behavior<DatabaseProtocol.Command> begin(DatabaseEntity entity) {
    Opening opening = new Opening(entity);
    opening.startAttempt();
    return opening.attempting();
  }

  /** An attempt runs: its result serves what waits, or refuses it, or waits to retry. */
  private Behavior<DatabaseProtocol.Command> attempting() {
    return whileAttemptRuns(this::onOpenResult);
  }

  /** Stopped while an attempt runs: its result answers what waits, and what it opened is closed. */
  private Behavior<DatabaseProtocol.Command> stopping() {
    return whileAttemptRuns(this::onOpenResultAfterStop);
  }

  private Behavior<DatabaseProtocol.Command> whileAttemptRuns(Function<OpenResult, Behavior<DatabaseProtocol.Command>> onResult) {
    return buffering()
        .onMessage(Stop.class, s -> onStop())
        .onMessage(OpenResult.class, onResult::apply)
        .build();
  }

  /** The previous owner held the lock: nothing runs and nothing is open until the timer fires. */
  private Behavior<DatabaseProtocol.Command> waitingToRetry() {
    return buffering()
        .onMessage(Stop.class, s -> onStopWhileWaiting())
        .onMessage(RetryOpen.class, r -> onRetryOpen())
        .build();
  }

  /** What every receive of an open shares: requests wait in the stash, and a stop closes what an attempt opened. */
  private BehaviorBuilder<DatabaseProtocol.Command> buffering() {
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, this::onRequest)
        .onSignal(PostStop.class, s -> onPostStop());
  }

  private void startAttempt() {
    attempt = new OpenAttempt(entity.blocking());
    CompletableFuture<Boolean> opened;
    try {
      opened = attempt.start(entity.context().getSystem(), entity.dir(), entity.owner(), entity.pipelineSettings());
    } catch (InvalidRequestException e) {
      opened = CompletableFuture.failedFuture(e);
    }
    entity.context().pipeToSelf(opened, (ok, err) -> new OpenResult(err == null && !ok, unwrap(err)));
  }

  /** Buffer {@code r} until the database is open, or answer it when the buffer is full. */
  private Behavior<DatabaseProtocol.Command> onRequest(Request r) {
    StashBuffer<DatabaseProtocol.Command> stash = entity.stash();
    if (stash.isFull()) {
      r.answer(new Unavailable(UnavailableReason.BUFFER_FULL, "database " + entity.name() + " is opening on "
          + entity.owner() + " and " + stash.capacity()
          + " requests are waiting (commitlane.cluster.open-buffer); nothing was written. Retry later"));
    } else {
      stash.stash(r);
    }
    return Behaviors.same();
  }

  /** The attempt's result closes what it opened (a second Stop changes nothing). */
  private Behavior<DatabaseProtocol.Command> onStop() {
    entity.logStop("OPENING");
    return stopping();
  }

  /** Nothing is open: no attempt to wait for. */
  private Behavior<DatabaseProtocol.Command> onStopWhileWaiting() {
    entity.logStop("OPENING");
    entity.timers().cancel(RetryOpen.INSTANCE);
    entity.answerStashed(entity.closing());
    return Behaviors.stopped();
  }

  private Behavior<DatabaseProtocol.Command> onRetryOpen() {
    startAttempt();
    return attempting();
  }

  private Behavior<DatabaseProtocol.Command> onOpenResult(OpenResult r) {
    if (r.failure() != null) {
      return Refused.refuse(entity, openFailed(r.failure()));
    }
    if (r.busy()) {
      return onLockBusy();
    }
    OwnerSession session = takeOpened();
    return session == null ? Behaviors.stopped() : Open.serve(entity, session);
  }

  private Behavior<DatabaseProtocol.Command> onOpenResultAfterStop(OpenResult r) {
    if (r.failure() != null) {
      entity.answerStashed(openFailed(r.failure()));
      return Behaviors.stopped();
    }
    if (r.busy()) {
      entity.answerStashed(entity.closing());
      return Behaviors.stopped();
    }
    OwnerSession session = takeOpened();
    return session == null ? Behaviors.stopped() : Closing.begin(entity, session);
  }

  /** Try again after {@code open-retry-interval}, or give up once {@code open-timeout} has passed. */
  private Behavior<DatabaseProtocol.Command> onLockBusy() {
    ClusterSettings settings = entity.settings();
    Path dir = entity.dir();
    if (System.nanoTime() - deadline < 0) {
      if (!lockBusyLogged) {
        lockBusyLogged = true;
        entity.log().info("database {} is held by its previous owner {}; retrying every {} for up to {}", entity.name(),
            OwnerLock.lastOwner(dir), settings.openRetryInterval(), settings.openTimeout());
      }
      entity.timers().startSingleTimer(RetryOpen.INSTANCE, settings.openRetryInterval());
      return waitingToRetry();
    }
    String holder = OwnerLock.lastOwner(dir);
    entity.log().warn("database {} is still held by its previous owner {} after {}; answering PREVIOUS_OWNER_HOLDS",
        entity.name(), holder, settings.openTimeout());
    return Refused.refuse(entity, new Unavailable(UnavailableReason.PREVIOUS_OWNER_HOLDS, "database "
        + entity.name() + " is still held by its previous owner " + holder + " (" + dir.resolve(OwnerLock.FILE_NAME) + ") after "
        + settings.openTimeout() + "; nothing was written. Retry later: the next request tries to open it again"));
  }

  /**
   * The reply to what waits for an open that failed: a name that cannot be a directory is
   * invalid, a damaged owner epoch waits for an operator; anything else may pass on a retry.
   */
  private Refusal openFailed(Throwable cause) {
    entity.log().error("cannot open database {} on {}", entity.name(), entity.owner(), cause);
    if (cause instanceof InvalidRequestException e) {
      return new Failed(FailureReason.INVALID_REQUEST, e.getMessage(), false);
    }
    if (cause instanceof OwnerEpochDamagedException e) {
      return new Failed(FailureReason.STORAGE, e.getMessage(), false); // an operator must act first
    }
    return new Failed(FailureReason.STORAGE, "cannot open database " + entity.name() + " on "
            + entity.owner() + ": " + cause, true);
  }

  /** The database the attempt opened, now this entity's; null if PostStop already took it (cannot happen while this actor runs). */
  private OwnerSession takeOpened() {
    OwnerSession session = attempt.take();
    if (session != null) {
      entity.log().info("database {} opened on this node as owner epoch {} ({})", entity.name(), session.epoch(), entity.owner());
    }
    return session;
  }

  /** Stopped while opening: close what a running attempt opened, and answer what waits. */
  private Behavior<DatabaseProtocol.Command> onPostStop() {
    attempt.abandon();
    entity.answerStashed(entity.closing());
    return Behaviors.same();
  }

}
