package io.commitlane.cluster.internal.entity;

import io.commitlane.cluster.ShardedDatabase;
import io.commitlane.cluster.internal.owner.OwnerSession;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.cluster.ShardedDatabase.Closed;
import io.commitlane.cluster.ShardedDatabase.Stop;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A {@link ShardedDatabase} entity its shard stopped: it answers requests {@code CLOSING}
 * (nothing written, retry), drains the commits it admitted, releases the database and then the
 * lock, and only then stops, so the shard's next owner opens after this one closed.
 */
public final class Closing {
  private Closing() {}

  /** Answer what waits, then close {@code session} on the blocking dispatcher and stop when it is done. */
  public static Behavior<DatabaseProtocol.Command> begin(DatabaseEntity entity, OwnerSession session) {
    entity.answerStashed(entity.closing());
    entity.log().info("closing database {} on {} (owner epoch {}): draining admitted commits", entity.name(), entity.owner(),
        session.epoch());
    entity.context().pipeToSelf(session.close(entity.blocking()), (ok, err) -> Closed.INSTANCE);
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, r -> onRequest(entity, r))
        .onMessage(Stop.class, s -> onStop(entity))
        .onMessage(Closed.class, c -> Behaviors.stopped())
        .onSignal(PostStop.class, s -> onPostStop(entity, session))
        .build();
  }

  private static Behavior<DatabaseProtocol.Command> onRequest(DatabaseEntity entity, Request r) {
    r.answer(entity.closing());
    return Behaviors.same();
  }

  /** Already closing. */
  private static Behavior<DatabaseProtocol.Command> onStop(DatabaseEntity entity) {
    entity.logStop("CLOSING");
    return Behaviors.same();
  }

  /**
   * Stopped before the close finished (by a forced stop after the handoff timeout, or the actor
   * system terminating): the running close releases the lock, or the system's termination does.
   */
  private static Behavior<DatabaseProtocol.Command> onPostStop(DatabaseEntity entity, OwnerSession session) {
    session.releaseLockAtTermination(entity.context().getSystem());
    return Behaviors.same();
  }
}
