package io.commitlane.cluster.internal.entity;

import io.commitlane.cluster.ShardedDatabase;
import io.commitlane.cluster.internal.owner.OwnerSession;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.internal.protocol.ReplyLimit;
import io.commitlane.actors.internal.protocol.RequestHandler;
import io.commitlane.cluster.ShardedDatabase.Stop;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.Materializer;

/**
 * A {@link ShardedDatabase} entity whose database is open on this node: requests are served by
 * the same {@link RequestHandler} as a local database's, on the entity's thread. An entity is
 * open at most once: from here it only closes.
 */
public final class Open {
  private final DatabaseEntity entity;
  private final OwnerSession session;
  private final RequestHandler handler;
  private Materializer materializer;

  private Open(DatabaseEntity entity, OwnerSession session) {
    this.entity = entity;
    this.session = session;
    this.handler = new RequestHandler(session.db(), entity.name(), entity.owner(), session.epoch(),
        entity.settings().conflictRetries(), this::materializer, entity.closing(),
        ReplyLimit.of(entity.context().getSystem()));
  }

  /** Serve {@code session}'s database, first the requests that waited for it. */
  public static Behavior<DatabaseProtocol.Command> serve(DatabaseEntity entity, OwnerSession session) {
    return entity.stash().unstashAll(new Open(entity, session).serving());
  }

  private Behavior<DatabaseProtocol.Command> serving() {
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, this::onRequest)
        .onMessage(Stop.class, s -> onStop())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<DatabaseProtocol.Command> onRequest(Request r) {
    handler.handle(r);
    return Behaviors.same();
  }

  private Behavior<DatabaseProtocol.Command> onStop() {
    entity.logStop("OPEN");
    return Closing.begin(entity, session);
  }

  /**
   * Stopped without a close: by a forced stop (after the handoff timeout), by the shard failing,
   * or by the actor system terminating. Close in the background; the lock goes only after the
   * database, and at the latest when the actor system has terminated (by then every database
   * supervisor has released its handle).
   */
  private Behavior<DatabaseProtocol.Command> onPostStop() {
    session.close(entity.blocking());
    session.releaseLockAtTermination(entity.context().getSystem());
    return Behaviors.same();
  }

  /** Change feeds run here and stop with this entity. */
  private Materializer materializer() {
    if (materializer == null) {
      materializer = Materializer.createMaterializer(entity.context());
    }
    return materializer;
  }
}
