package io.commitlane.actors.projection.internal;

import io.commitlane.actors.projection.HandlerFailure;
import io.commitlane.actors.projection.ProjectionConflictException;
import io.commitlane.actors.projection.ProjectionHandlerException;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.actors.projection.ProjectionState;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a projection runner does after a failed step, and the telling of it: a conflict or a full
 * queue is tried again after the conflict backoff, a failure that may pass restarts after the
 * restart backoff (up to max-restarts in a row), anything else stops the projection. Counts the
 * failures in a row (a committed batch resets them), updates the run's status, logs one line per
 * failure (DEBUG for conflicts, WARN for a restart, ERROR for a stop) and records the Flight
 * Recorder event. Used by the stage's thread only.
 */
final class FailurePolicy {
  /** Under the API's name: one logger to configure. */
  static final Logger LOG = LoggerFactory.getLogger("io.commitlane.actors.projection.Projection");

  /** Start again from the stored position after {@code delay}, showing {@code state} meanwhile; or, {@code delay} null, stop. */
  record Decision(Duration delay, ProjectionState state) {
    static final Decision STOP = new Decision(null, ProjectionState.FAILED);

    boolean stops() {
      return delay == null;
    }
  }

  private final String name;
  private final ProjectionStore<?, ?> store;
  private final ProjectionSettings settings;
  private final ProjectionRun run;
  private int conflictsInARow;
  private int restartsInARow;

  FailurePolicy(String name, ProjectionStore<?, ?> store, ProjectionSettings settings, ProjectionRun run) {
    this.name = name;
    this.store = store;
    this.settings = settings;
    this.run = run;
  }

  /** A batch committed: failures in a row start over. */
  void succeeded() {
    conflictsInARow = 0;
    restartsInARow = 0;
  }

  /**
   * @param error the failure, unwrapped
   * @param step what failed, in words ("the batch of 4 records after position 12 (through 20)")
   * @param records the records of the failed batch, 0 when a read or a load failed
   * @param position the stored position the runner goes on from
   */
  Decision decide(Throwable error, String step, int records, long position) {
    if (error instanceof ProjectionConflictException) {
      run.conflicts++;
      conflictsInARow++;
      LOG.debug("projection '{}' ({}): {}", name, store.describe(), error.getMessage());
      return new Decision(settings.conflictBackoff().delay(conflictsInARow), ProjectionState.STARTING);
    }
    run.lastError = ProjectionRun.describe(error);
    String what = error instanceof ProjectionHandlerException
        ? "its handler failed on " + step + ": " + error.getCause() + "; nothing of the batch was written"
        : step + " failed: " + error + (records == 0 ? "" : "; nothing of the batch was written");
    FailureKind kind = error instanceof ProjectionHandlerException
        ? (settings.onHandlerFailure() == HandlerFailure.STOP ? FailureKind.PERMANENT : FailureKind.TRANSIENT)
        : store.classify(error);
    switch (kind) {
      case RETRY_SOON -> {
        conflictsInARow++;
        LOG.debug("projection '{}' ({}): {}; trying again", name, store.describe(), what);
        return new Decision(settings.conflictBackoff().delay(conflictsInARow), ProjectionState.STARTING);
      }
      case TRANSIENT -> {
        restartsInARow++;
        int max = settings.maxRestarts();
        if (max >= 0 && restartsInARow > max) {
          return stop(error, what, "after " + max + " restarts in a row (restart-backoff.max-restarts = " + max + ")", records,
              position);
        }
        run.restarts++;
        Duration delay = settings.restartBackoff().delay(restartsInARow);
        LOG.warn("projection '{}' ({}): {}; restarting from the stored position in {} ms (restart {} in a row)", name,
            store.describe(), what, delay.toMillis(), restartsInARow);
        ProjectionFailedEvent.record(name, store.describe(), position, records, error, "RESTART", restartsInARow, delay);
        return new Decision(delay, ProjectionState.RESTARTING);
      }
      default -> {
        return stop(error, what, error instanceof ProjectionHandlerException ? "(on-handler-failure = stop)"
            : "(it cannot pass by retrying)", records, position);
      }
    }
  }

  private Decision stop(Throwable error, String what, String why, int records, long position) {
    LOG.error("projection '{}' ({}) stopped {}: {}; its stored position is {}", name, store.describe(), why, what, position,
        error);
    ProjectionFailedEvent.record(name, store.describe(), position, records, error, "STOP", restartsInARow, Duration.ZERO);
    return Decision.STOP;
  }
}
