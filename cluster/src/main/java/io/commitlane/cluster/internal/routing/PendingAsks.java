package io.commitlane.cluster.internal.routing;

import io.commitlane.actors.DatabaseProtocol.Command;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.internal.pipeline.DispatcherFuture;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function;

/**
 * The requests a node's DatabaseSharding sent and still waits for: each one's future is completed
 * by the reply, or by its request family's {@code NO_REPLY} refusal when the ask times out, fails,
 * or this node's actor system terminates first (its timers stop, so no timeout would come). Futures
 * complete on the given executor, never on the common pool.
 */
public final class PendingAsks {
  private final ActorSystem<?> system;
  private final Executor executor;
  private final Set<Pending<?>> pending = ConcurrentHashMap.newKeySet();

  public PendingAsks(ActorSystem<?> system, Executor executor) {
    this.system = system;
    this.executor = executor;
    system.getWhenTerminated().whenCompleteAsync((done, err) -> {
      for (Pending<?> p : pending) {
        p.noReply("this node's actor system terminated before the reply came");
      }
    }, Runnable::run);
  }

  /**
   * Ask the entity {@code ref} (database {@code name}) the request {@code message} builds;
   * {@code refused} makes the reply that says it was not served, of the request's own family.
   */
  public <R> CompletionStage<R> ask(EntityRef<Command> ref, String name, java.util.function.Function<Refusal, ? extends R> refused,
      Duration timeout, Function<ActorRef<R>, Command> message) {
    Pending<R> result = new Pending<>(name, refused, timeout);
    pending.add(result);
    try {
      // An explicit executor: Pekko's ask stage would otherwise run this on the common pool.
      ref.<R>ask(message, timeout).whenCompleteAsync((reply, err) -> {
        if (err == null) {
          result.complete(reply);
        } else {
          result.noReply(err.getClass().getSimpleName());
        }
      }, executor);
    } catch (RuntimeException e) {
      result.noReply(e.toString()); // e.g. this node is shutting down and its scheduler is closed
    }
    if (system.whenTerminated().isCompleted()) {
      result.noReply("this node's actor system has terminated");
    }
    return result;
  }

  /** A request's future: completed by the reply, by the ask timeout, or by this node's termination. */
  private final class Pending<R> extends DispatcherFuture<R> {
    private final String name;
    private final java.util.function.Function<Refusal, ? extends R> refused;
    private final Duration timeout;

    Pending(String name, java.util.function.Function<Refusal, ? extends R> refused, Duration timeout) {
      super(executor);
      this.name = name;
      this.refused = refused;
      this.timeout = timeout;
      whenComplete((r, e) -> pending.remove(this));
    }

    /** Complete with the request family's refusal: {@code NO_REPLY}, outcome unknown. */
    void noReply(String why) {
      complete(refused.apply(new Unavailable(UnavailableReason.NO_REPLY, "no reply from the owner of database " + name
          + " within " + timeout + " (" + why + "): the owner may be unreachable, gone or moving. The outcome is unknown: a"
          + " write sent with a request id (or a conditional write) can be sent again safely; a blind write without one may"
          + " have been applied")));
    }
  }
}
