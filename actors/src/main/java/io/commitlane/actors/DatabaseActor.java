package io.commitlane.actors;

import com.typesafe.config.Config;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.internal.lifecycle.DatabaseNames;
import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.actors.internal.protocol.ReplyLimit;
import io.commitlane.actors.internal.protocol.RequestHandler;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.stream.Materializer;

/**
 * A database as an actor that speaks {@link DatabaseProtocol}: spawn it under your own guardian,
 * give its reference to the actors that write and read, stop it to close it.
 *
 * <pre>{@code
 * ActorRef<DatabaseProtocol.Request> orders = context.spawn(DatabaseActor.create(Path.of("data/orders")), "orders");
 * orders.tell(new DatabaseProtocol.Write(List.of(Mutation.put(key, value)), null, 1L, replies));
 * }</pre>
 *
 * <ul>
 *   <li><b>Opening.</b> When it starts it opens its path through the {@link Commitlane}
 *       extension, without blocking its thread (the replay runs on the lifecycle dispatcher);
 *       requests that arrive meanwhile wait, up to {@code commit-queue-capacity} of them (more are
 *       answered {@link FailureReason#OVERLOADED}). If the open fails (bad settings, the path open
 *       with other settings or in another actor system, a storage error), the waiting requests are
 *       answered with the failure and the actor fails with it, which its parent sees.
 *   <li><b>Sharing.</b> It is a handle of its path's database: the database's supervisor (commit
 *       executors, transaction-log actor) is shared with every other handle of the path in the
 *       actor system, so {@code commit-threads} bounds the database, not each actor.
 *   <li><b>Stopping.</b> Stopped by its parent (or with it), it closes its handle: the commits it
 *       admitted run to their end and their replies go out, and requests still in its mailbox are
 *       answered {@link FailureReason#DATABASE_CLOSED} (nothing written). The last handle's close
 *       releases the database.
 *   <li><b>Threads.</b> Requests are read, transactions built and reads served on this actor's
 *       dispatcher; commits run on the database's commit executors, which tell the replies.
 * </ul>
 */
public final class DatabaseActor {
  /** The actor's own messages (the open finished). */
  private sealed interface Internal extends DatabaseProtocol.Command permits Opened, OpenFailed {}

  private enum Opened implements Internal { INSTANCE }

  private record OpenFailed(Throwable cause) implements Internal {}

  /** In the open slot once the actor stopped: an open that finishes later closes its handle itself. */
  private static final Object STOPPED = new Object();

  private final ActorContext<DatabaseProtocol.Command> ctx;
  /** The handle once open; {@link #STOPPED} once stopped. Shared with the open's completion. */
  private final AtomicReference<Object> slot;
  private final boolean owned;

  private DatabaseActor(ActorContext<DatabaseProtocol.Command> ctx, AtomicReference<Object> slot, boolean owned) {
    this.ctx = ctx;
    this.slot = slot;
    this.owned = owned;
  }

  /** Open {@code path} with the {@code commitlane { ... }} settings of the actor system's config. */
  public static Behavior<Request> create(Path path) {
    return startOpening(path, system -> PipelineSettings.fromConfig(system.settings().config()));
  }

  /** Open {@code path} with {@code settings}. */
  public static Behavior<Request> create(Path path, PipelineSettings settings) {
    Objects.requireNonNull(settings, "settings");
    return startOpening(path, system -> settings);
  }

  /** Open {@code path} with the {@code commitlane} settings of {@code config}, falling back to the actor system's. */
  public static Behavior<Request> create(Path path, Config config) {
    Objects.requireNonNull(config, "config");
    return startOpening(path, system -> PipelineSettings.fromConfig(config.withFallback(system.settings().config())));
  }

  /**
   * Serve an open handle this actor does not own: stopping the actor leaves the handle open.
   * ({@link CommitlaneDatabase#ref()} is such an actor, one per database.)
   */
  public static Behavior<Request> create(CommitlaneDatabase db) {
    Objects.requireNonNull(db, "db");
    Behavior<DatabaseProtocol.Command> b = Behaviors.setup(ctx -> {
      Commitlane.get(ctx.getSystem()).rememberDatabaseActor(ctx.getSelf()); // requests after a stop are answered
      return new DatabaseActor(ctx, new AtomicReference<>(db), false).serving(db);
    });
    return b.narrow();
  }

  private static Behavior<Request> startOpening(Path path, Function<ActorSystem<?>, PipelineSettings> settingsOf) {
    Objects.requireNonNull(path, "path");
    Behavior<DatabaseProtocol.Command> b = Behaviors.setup(ctx -> {
      // First: the extension answers the requests of a database actor that fails or stops.
      Commitlane commitlane = Commitlane.get(ctx.getSystem());
      commitlane.rememberDatabaseActor(ctx.getSelf());
      AtomicReference<Object> slot = new AtomicReference<>();
      ActorRef<DatabaseProtocol.Command> self = ctx.getSelf();
      PipelineSettings settings;
      try {
        settings = settingsOf.apply(ctx.getSystem());
      } catch (RuntimeException e) {
        self.tell(new OpenFailed(e)); // bad settings fail the actor with the typed error, after answering what waits
        return Behaviors.withStash(PipelineSettings.defaults().commitQueueCapacity(),
            stash -> new DatabaseActor(ctx, slot, true).opening(stash, path));
      }
      commitlane.openAsync(path, settings).whenComplete((db, err) -> {
        if (db != null && !slot.compareAndSet(null, db)) {
          db.closeAsync(); // the actor stopped while it opened
          return;
        }
        self.tell(err == null ? Opened.INSTANCE : new OpenFailed(Failures.unwrap(err)));
      });
      return Behaviors.withStash(settings.commitQueueCapacity(),
          stash -> new DatabaseActor(ctx, slot, true).opening(stash, path));
    });
    return b.narrow();
  }

  // ---- states -------------------------------------------------------------------------------

  private Behavior<DatabaseProtocol.Command> opening(StashBuffer<DatabaseProtocol.Command> stash, Path path) {
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, r -> onRequestWhileOpening(stash, r))
        .onMessage(Opened.class, o -> stash.unstashAll(serving((CommitlaneDatabase) slot.get())))
        .onMessage(OpenFailed.class, f -> onOpenFailed(stash, f, path))
        .onSignal(PostStop.class, s -> {
          // Stopped while opening: what waits in the stash never reaches the dead letters.
          answerStashed(stash, RequestHandler.closedRefusal(path));
          return onPostStop();
        })
        .build();
  }

  private Behavior<DatabaseProtocol.Command> serving(CommitlaneDatabase db) {
    RequestHandler handler = new RequestHandler(db, DatabaseNames.of(db.path()), ctx.getSystem().address().toString(), 0, 0,
        materializer(), RequestHandler.closedRefusal(db.path()), ReplyLimit.of(ctx.getSystem()));
    return Behaviors.receive(DatabaseProtocol.Command.class)
        .onMessage(Request.class, r -> {
          handler.handle(r);
          return Behaviors.same();
        })
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  // ---- handlers -----------------------------------------------------------------------------

  private Behavior<DatabaseProtocol.Command> onRequestWhileOpening(StashBuffer<DatabaseProtocol.Command> stash, Request r) {
    if (stash.isFull()) {
      r.answer(new Failed(FailureReason.OVERLOADED, "the database is opening and " + stash.capacity()
          + " requests are waiting (commitlane.commit-queue-capacity); nothing was written. Retry later", true));
    } else {
      stash.stash(r);
    }
    return Behaviors.same();
  }

  /**
   * Answer what waited, and what comes later from the dead letters, with the cause; then fail: the
   * parent sees the cause (a typed error).
   */
  private Behavior<DatabaseProtocol.Command> onOpenFailed(StashBuffer<DatabaseProtocol.Command> stash, OpenFailed f, Path path) {
    Failed why = new Failed(FailureReason.DATABASE_CLOSED, "database " + path + " could not be opened, so its database actor "
        + ctx.getSelf().path().toStringWithoutAddress() + " stopped: " + f.cause() + ". Nothing was written; fix the cause"
        + " and start a database actor again", false);
    Commitlane.get(ctx.getSystem()).databaseActorOpenFailed(ctx.getSelf(), why);
    answerStashed(stash, why);
    if (f.cause() instanceof RuntimeException e) {
      throw e;
    }
    throw new IllegalStateException("cannot open database " + path, f.cause());
  }

  private static void answerStashed(StashBuffer<DatabaseProtocol.Command> stash, DatabaseProtocol.Refusal why) {
    stash.forEach(c -> {
      if (c instanceof Request r) {
        r.answer(why);
      }
    });
    stash.clear();
  }

  private Behavior<DatabaseProtocol.Command> onPostStop() {
    Object previous = slot.getAndSet(STOPPED);
    if (owned && previous instanceof CommitlaneDatabase db) {
      db.closeAsync(); // its admitted commits run to their end; the last handle releases the database
    }
    return Behaviors.same();
  }

  /** A materializer for change feeds, created on first use; its streams stop with this actor. */
  private Supplier<Materializer> materializer() {
    Materializer[] m = new Materializer[1];
    return () -> {
      if (m[0] == null) {
        m[0] = Materializer.createMaterializer(ctx);
      }
      return m[0];
    };
  }
}
