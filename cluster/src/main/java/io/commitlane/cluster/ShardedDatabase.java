package io.commitlane.cluster;

import io.commitlane.annotation.InternalApi;
import io.commitlane.cluster.internal.entity.Closing;
import io.commitlane.cluster.internal.entity.DatabaseEntity;
import io.commitlane.cluster.internal.entity.Open;
import io.commitlane.cluster.internal.entity.Opening;
import io.commitlane.cluster.internal.entity.Refused;
import io.commitlane.cluster.internal.owner.OwnerLock;
import io.commitlane.cluster.internal.owner.OwnerSession;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.internal.protocol.RequestHandler;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * One database as a Cluster Sharding entity: the entity id is the database name, and the node
 * that hosts the entity owns the database (opens it under {@code <data-dir>/<name>}, the only
 * writer). Clients on any node send the same {@link DatabaseProtocol} requests a local database
 * understands through an {@code EntityRef} ({@link DatabaseSharding} does it for Java callers);
 * requests and replies cross nodes through Jackson CBOR ({@link
 * io.commitlane.actors.ProtocolMessage}, {@link CborSerializable}). The requests are served by
 * the same {@link RequestHandler} as a local database's.
 *
 * <p><b>Life.</b> The entity starts on the first message, takes the database's {@link
 * OwnerLock} (retrying while a previous owner still holds it, up to {@code open-timeout}) and
 * opens it on the blocking dispatcher, buffering commands meanwhile. An open that times out or
 * fails refuses what it buffered; the next request starts a new open. On {@link Stop} (sharding
 * sends it on rebalance, on a node's graceful leave and on idle passivation) it refuses new
 * requests with {@link Unavailable} ({@code CLOSING}: nothing written, retry), drains the
 * commits it admitted, releases the database and then the lock, and only then stops, so the
 * shard's next owner opens after this one closed.
 *
 * <p>Each stage of that life is a behavior of its own: {@link Opening}, {@link Open}, {@link
 * Closing} and {@link Refused}. They share the entity's stash, timers and names through {@link
 * DatabaseEntity}; the database and its lock travel between them as an {@link OwnerSession}.
 *
 * <p><b>Threads.</b> Transactions are built, and reads served, on the entity's dispatcher
 * ({@code commitlane.cluster.entity-dispatcher}). Commits run on the database's commit
 * executors, which tell the replies without a hop back through the entity.
 */
public final class ShardedDatabase {
  /** The entity type of databases. */
  public static final EntityTypeKey<DatabaseProtocol.Command> TYPE_KEY =
      EntityTypeKey.create(DatabaseProtocol.Command.class, "commitlane-database");

  // ---- the protocol -------------------------------------------------------------------------

  /**
   * The entity's own messages: sharding's {@link Stop}, and internal ones. It also accepts every
   * {@link DatabaseProtocol.Request}, the protocol a local database speaks.
   */
  public sealed interface Command extends DatabaseProtocol.Command permits Stop, OpenResult, RetryOpen, Closed {}

  /** Sharding's stop message: drain, close, release, stop. Sent locally by the shard. */
  public enum Stop implements Command, CborSerializable { INSTANCE }

  // ---- internal messages (never cross nodes) ------------------------------------------------

  /** An open attempt finished: the database is in the attempt's slot, or the lock was busy, or it failed. */
  @InternalApi public record OpenResult(boolean busy, Throwable failure) implements Command {}

  /** Time to try a lock the previous owner held again. */
  @InternalApi public enum RetryOpen implements Command { INSTANCE }

  /** The close drained the database and released it and its lock. */
  @InternalApi public enum Closed implements Command { INSTANCE }

  private ShardedDatabase() {}

  /** The entity behavior for database {@code name}; {@link DatabaseSharding#init} registers it. */
  public static Behavior<DatabaseProtocol.Command> create(String name, ClusterSettings settings, PipelineSettings pipelineSettings) {
    return Behaviors.withStash(settings.openBuffer(), stash -> Behaviors.withTimers(timers -> Behaviors.setup(ctx -> {
      ctx.setLoggerName(ShardedDatabase.class); // every state logs as the entity, whichever class it is
      return Opening.begin(DatabaseEntity.of(ctx, stash, timers, name, settings, pipelineSettings));
    })));
  }
}
