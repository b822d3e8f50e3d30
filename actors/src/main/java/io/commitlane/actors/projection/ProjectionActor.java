package io.commitlane.actors.projection;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A projection as an actor: spawn it under your own guardian (or as a singleton, or a sharded
 * daemon process); it runs the projection from its stored position while it lives.
 *
 * <pre>{@code
 * ActorRef<ProjectionActor.Command> counts = context.spawn(ProjectionActor.create(projection), "order-counts");
 * counts.tell(new ProjectionActor.GetStatus(statusReplies));   // ProjectionStatus: position, lag, counts, last error
 * counts.tell(new ProjectionActor.Stop(stopped));              // Done after the batch being committed, then it stops
 * }</pre>
 *
 * <p>It stops itself when the projection stops: after {@link Stop}, and by failing with the
 * projection's error when a failure stops it ({@link HandlerFailure#STOP}, restarts used up, a
 * closed database), so a parent that watches it gets {@code ChildFailed} with the cause; supervise
 * it with {@code Behaviors.supervise(...).onFailure(SupervisorStrategy.restartWithBackoff(...))} to
 * start it again from the stored position. Stopping the actor (its parent stopping) stops the
 * projection after the outcome of the batch it is committing. The projection runs on its own
 * dispatcher ({@link ProjectionSettings#dispatcher()}), never on the actor's.
 */
public final class ProjectionActor extends AbstractBehavior<ProjectionActor.Command> {
  /** What a projection actor understands. */
  public sealed interface Command {}

  /** Replies with the projection's {@link ProjectionStatus}. */
  public record GetStatus(ActorRef<ProjectionStatus> replyTo) implements Command {}

  /** Stops the projection after the outcome of the batch it is committing; replies {@code Done} once stopped, then the actor stops. */
  public record Stop(ActorRef<Done> replyTo) implements Command {}

  /** The projection stopped: {@code failure} null after a stop. */
  private record Finished(Throwable failure) implements Command {}

  /** The actor of {@code projection}; it starts the projection when it starts. */
  public static Behavior<Command> create(Projection<?, ?> projection) {
    Objects.requireNonNull(projection, "projection");
    return Behaviors.setup(context -> new ProjectionActor(context, projection));
  }

  private final ProjectionControl control;
  private final List<ActorRef<Done>> stopRequests = new ArrayList<>();

  private ProjectionActor(ActorContext<Command> context, Projection<?, ?> projection) {
    super(context);
    this.control = projection.run(context.getSystem());
    context.pipeToSelf(control.whenStopped(), (done, failure) -> new Finished(failure));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(GetStatus.class, this::onGetStatus)
        .onMessage(Stop.class, this::onStop)
        .onMessage(Finished.class, this::onFinished)
        .onSignal(PostStop.class, this::onPostStop)
        .build();
  }

  private Behavior<Command> onGetStatus(GetStatus request) {
    request.replyTo().tell(control.status());
    return this;
  }

  private Behavior<Command> onStop(Stop request) {
    stopRequests.add(request.replyTo());
    control.stop();
    return this;
  }

  private Behavior<Command> onFinished(Finished finished) {
    stopRequests.forEach(r -> r.tell(Done.getInstance()));
    if (finished.failure() != null) {
      Throwable cause = finished.failure() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
          ? c.getCause() : finished.failure();
      throw cause instanceof RuntimeException r ? r : new IllegalStateException("projection " + control.projection() + " failed", cause);
    }
    return Behaviors.stopped();
  }

  /** Stopped from outside (its parent): the projection stops after the batch being committed. */
  private Behavior<Command> onPostStop(PostStop signal) {
    control.stop();
    return this;
  }
}
