package io.commitlane.replication.actors;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Command;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.internal.ReplyLimit;
import io.commitlane.replication.ReplicatedDatabase;
import java.util.Objects;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.stream.Materializer;

/**
 * A replicated database behind the actor protocol ({@link DatabaseProtocol}): spawn one on every
 * node that hosts a replica, and send requests to any of them. Commits go to the group's leader
 * (the replica's Raft client finds it and follows it across elections); reads are answered from
 * the local replica, after a read barrier when they must be linearizable.
 *
 * <p>Each actor registers with the receptionist under {@link #serviceKey}, so a node without a
 * replica (or a client) can find one: with Pekko Cluster, the receptionist spans the cluster.
 * There is no single owner to route to, so Cluster Sharding is not used: every replica takes
 * every request, and Raft picks the one writer.
 *
 * <p>The actor never blocks its dispatcher: commits and barriers complete on the replica node's
 * completion threads, which tell the reply.
 */
public final class ReplicatedDatabaseActor {
  private ReplicatedDatabaseActor() {}

  /** The receptionist key the actors of replicated database {@code database} register under. */
  public static ServiceKey<Command> serviceKey(String database) {
    return ServiceKey.create(Command.class, "commitlane-replicated-" + database);
  }

  /** {@link #create(ReplicatedDatabase, ReplicatedActorSettings)} with the defaults. */
  public static Behavior<Command> create(ReplicatedDatabase database) {
    return create(database, ReplicatedActorSettings.defaults());
  }

  /**
   * The actor for this node's replica of {@code database}.
   *
   * @param database a handle from {@code ReplicaNode.host} or {@code join}: a client handle
   *     ({@code ReplicatedDatabase.connect}) holds no replica to read and is refused
   * @throws IllegalArgumentException for a client handle
   */
  public static Behavior<Command> create(ReplicatedDatabase database, ReplicatedActorSettings settings) {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(settings, "settings");
    if (!database.holdsReplica()) {
      throw new IllegalArgumentException("replicated database '" + database.name()
          + "': an actor serves a replica this node hosts (ReplicaNode.host or join), not a client handle");
    }
    return Behaviors.setup(context -> {
      context.getSystem().receptionist().tell(Receptionist.register(serviceKey(database.name()), context.getSelf()));
      ReplicatedRequests requests = new ReplicatedRequests(database, settings, Materializer.createMaterializer(context),
          ReplyLimit.of(context.getSystem()));
      return Behaviors.receive(Command.class)
          .onMessage(Request.class, request -> {
            requests.serve(request);
            return Behaviors.same();
          })
          .build();
    });
  }
}
