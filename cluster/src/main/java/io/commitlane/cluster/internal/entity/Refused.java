package io.commitlane.cluster.internal.entity;

import io.commitlane.cluster.ShardedDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.cluster.ShardedDatabase.Stop;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A {@link ShardedDatabase} entity whose last open failed or timed out and whose buffered
 * requests were refused: nothing is open, and the next request starts a new open. The entity
 * stays (idle passivation stops it): a Passivate would reach the shard through sharding's
 * delegator, after a client's retry could already have reached this entity and been refused
 * again.
 */
public final class Refused {
  private Refused() {}

  /** Refuse what waits with {@code why}; the next request starts a new open (or the shard stops this entity). */
  public static Behavior<DatabaseProtocol.Command> refuse(DatabaseEntity entity, Refusal why) {
    entity.answerStashed(why);
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, r -> onRequest(entity, r))
        .onMessage(Stop.class, s -> onStop(entity))
        .build();
  }

  /** Buffer {@code r} for a new open, with its own deadline. */
  private static Behavior<DatabaseProtocol.Command> onRequest(DatabaseEntity entity, Request r) {
    entity.stash().stash(r);
    return Opening.begin(entity);
  }

  private static Behavior<DatabaseProtocol.Command> onStop(DatabaseEntity entity) {
    entity.logStop("REFUSED");
    return Behaviors.stopped();
  }
}
