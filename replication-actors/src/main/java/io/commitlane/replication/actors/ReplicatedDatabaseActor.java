package io.commitlane.replication.actors;

import io.commitlane.replication.actors.internal.protocol.ReplicatedRequests;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.internal.protocol.ReplyLimit;
import io.commitlane.replication.ReplicatedDatabase;
import java.util.Objects;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.stream.Materializer;

/**
 * A replicated database behind the actor protocol ({@link DatabaseProtocol}): an {@code
 * ActorRef<DatabaseProtocol.Request>} like a local {@code DatabaseActor}, with the same requests,
 * replies and refusal families, so code that holds it does not know which one it talks to.
 *
 * <p>Spawn one on any node: one that hosts a replica ({@code ReplicaNode.host} or {@code join})
 * reads it, after a read barrier when reads must be linearizable; one that holds only a client
 * handle ({@link ReplicatedDatabase#connect}) reads through the group's leader. Commits go to the
 * leader either way (the Raft client finds it and follows it across elections), and a {@code
 * ConditionalWrite}'s expectations are checked by every replica at the commit's place in the log,
 * so it costs one round trip like a {@code Write}, from a follower or a client as from the leader.
 *
 * <p>Each actor registers with the receptionist under {@link #serviceKey}, so another node can
 * find one: with Pekko Cluster, the receptionist spans the cluster. There is no single owner to
 * route to, so Cluster Sharding is not used: every actor takes every request, and Raft picks the
 * one writer.
 *
 * <p>The actor never blocks its dispatcher: commits and barriers complete on the replica node's
 * (or the client's) completion threads, which tell the reply; a client handle's reads, each a
 * round trip to the leader, run on Pekko's blocking-I/O dispatcher.
 */
public final class ReplicatedDatabaseActor {
  private ReplicatedDatabaseActor() {}

  /** The receptionist key the actors of replicated database {@code database} register under. */
  public static ServiceKey<Request> serviceKey(String database) {
    return ServiceKey.create(Request.class, "commitlane-replicated-" + database);
  }

  /** {@link #create(ReplicatedDatabase, ReplicatedActorSettings)} with the defaults. */
  public static Behavior<Request> create(ReplicatedDatabase database) {
    return create(database, ReplicatedActorSettings.defaults());
  }

  /**
   * The actor for {@code database} on this node. Stopping the actor leaves the handle open: close
   * it (a client handle) or its node when done.
   *
   * @param database a handle from {@code ReplicaNode.host} or {@code join}, or a client handle
   *     from {@link ReplicatedDatabase#connect}; with a client handle, requests that need a
   *     replica on this node (reads with {@code ReadConsistency.LOCAL}, change feeds) are refused
   *     with {@code Failed(INVALID_REQUEST)} in their own reply family
   */
  public static Behavior<Request> create(ReplicatedDatabase database, ReplicatedActorSettings settings) {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(settings, "settings");
    return Behaviors.setup(context -> {
      context.getSystem().receptionist().tell(Receptionist.register(serviceKey(database.name()), context.getSelf()));
      ReplicatedRequests requests = new ReplicatedRequests(database, settings, Materializer.createMaterializer(context),
          ReplyLimit.of(context.getSystem()), context.getSystem().dispatchers().lookup(DispatcherSelector.blocking()));
      return Behaviors.receive(Request.class)
          .onMessage(Request.class, request -> {
            requests.serve(request);
            return Behaviors.same();
          })
          .build();
    });
  }
}
