package io.commitlane.cluster;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.DatabaseProtocol.UnavailableReason;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.RequestHandler;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.stream.Materializer;

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
 * <p><b>Threads.</b> Transactions are built, and reads served, on the entity's dispatcher
 * ({@code commitlane.cluster.entity-dispatcher}). Commits run on the database's commit
 * executors, which tell the replies without a hop back through the entity.
 */
public final class ShardedDatabase extends AbstractBehavior<DatabaseProtocol.Command> {
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

  // ---- internal messages --------------------------------------------------------------------

  /** An open attempt finished: the database is in the open slot, or the lock was busy, or it failed. */
  private record OpenResult(boolean busy, Throwable failure) implements Command {}

  private enum RetryOpen implements Command { INSTANCE }

  private enum Closed implements Command { INSTANCE }

  /** The database open on this owner, the lock that makes it the only one, and what serves its requests. */
  private record Owned(CommitlaneDatabase db, OwnerLock lock, RequestHandler handler) {
    /** Drain and release the database, then the lock. The stage never fails. */
    CompletableFuture<Void> close(Executor blocking) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      CompletableFuture<?> closed;
      try {
        closed = db.closeAsync().toCompletableFuture();
      } catch (RuntimeException e) {
        closed = CompletableFuture.failedFuture(e);
      }
      closed.whenCompleteAsync((ok, err) -> {
        lock.close();
        done.complete(null);
      }, blocking);
      return done;
    }
  }

  private enum State {
    OPENING,
    OPEN,
    CLOSING,
    /**
     * The last open failed or timed out and its buffered requests were refused: nothing is open,
     * and the next request starts a new open. The entity stays (idle passivation stops it): a
     * Passivate would reach the shard through sharding's delegator, after a client's retry could
     * already have reached this entity and been refused again.
     */
    REFUSED
  }

  // ---- the behavior -------------------------------------------------------------------------

  private final String name;
  private final ClusterSettings settings;
  private final PipelineSettings pipelineSettings;
  private final StashBuffer<DatabaseProtocol.Command> stash;
  private final TimerScheduler<DatabaseProtocol.Command> timers;
  private final Executor blocking;
  private final String owner;
  private long openDeadline;
  /** Where a finished open attempt leaves the database: taken by this actor, or by PostStop if it stopped first. */
  private final AtomicReference<Opened> openSlot = new AtomicReference<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private State state = State.OPENING;
  private boolean attemptRunning;
  private boolean stopRequested;
  private boolean lockBusyLogged;
  private Owned owned;
  private Materializer materializer;

  /** An open attempt's result, before this actor takes it on its own thread. */
  private record Opened(CommitlaneDatabase db, OwnerLock lock) {
    void close(Executor blocking) {
      new Owned(db, lock, null).close(blocking);
    }
  }

  private ShardedDatabase(ActorContext<DatabaseProtocol.Command> ctx, StashBuffer<DatabaseProtocol.Command> stash,
      TimerScheduler<DatabaseProtocol.Command> timers,
      String name, ClusterSettings settings, PipelineSettings pipelineSettings) {
    super(ctx);
    this.name = name;
    this.settings = settings;
    this.pipelineSettings = pipelineSettings;
    this.stash = stash;
    this.timers = timers;
    this.blocking = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(ClusterSettings.BLOCKING_DISPATCHER));
    this.owner = Cluster.get(ctx.getSystem()).selfMember().address().toString();
  }

  /** The entity behavior for database {@code name}; {@link DatabaseSharding#init} registers it. */
  public static Behavior<DatabaseProtocol.Command> create(String name, ClusterSettings settings, PipelineSettings pipelineSettings) {
    return Behaviors.withStash(settings.openBuffer(), stash -> Behaviors.withTimers(timers -> Behaviors.setup(ctx -> {
      ShardedDatabase entity = new ShardedDatabase(ctx, stash, timers, name, settings, pipelineSettings);
      entity.beginOpening();
      return entity;
    })));
  }

  @Override
  public Receive<DatabaseProtocol.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Request.class, this::onRequest)
        .onMessage(Stop.class, s -> onStop())
        .onMessage(OpenResult.class, this::onOpenResult)
        .onMessage(RetryOpen.class, r -> onRetryOpen())
        .onMessage(Closed.class, c -> Behaviors.stopped())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  // ---- opening and closing ------------------------------------------------------------------

  /** A new open: its own {@code open-timeout}, its own log line while the previous owner holds the lock. */
  private void beginOpening() {
    state = State.OPENING;
    openDeadline = System.nanoTime() + settings.openTimeout().toNanos();
    lockBusyLogged = false;
    startOpen();
  }

  private void startOpen() {
    attemptRunning = true;
    Path dir;
    try {
      dir = settings.databaseDir(name);
    } catch (InvalidRequestException e) {
      getContext().pipeToSelf(CompletableFuture.failedFuture(e), (ok, err) -> new OpenResult(false, err));
      return;
    }
    ActorSystem<?> system = getContext().getSystem(); // the context belongs to the actor's thread, not the blocking one
    CompletableFuture<Boolean> attempt = CompletableFuture.supplyAsync(() -> {
      OwnerLock lock = OwnerLock.tryAcquire(dir, owner);
      if (lock == null) {
        return false;
      }
      CommitlaneDatabase db;
      try {
        db = CommitlaneDatabase.open(system, dir, pipelineSettings);
      } catch (RuntimeException | Error e) {
        lock.close();
        throw e;
      }
      openSlot.set(new Opened(db, lock));
      if (stopped.get()) {
        closeLeftover(); // the entity stopped while this attempt ran: nobody else will close it
      }
      return true;
    }, blocking);
    getContext().pipeToSelf(attempt, (ok, err) -> new OpenResult(err == null && !ok, unwrap(err)));
  }

  private Behavior<DatabaseProtocol.Command> onOpenResult(OpenResult r) {
    attemptRunning = false;
    if (r.failure() != null) {
      getContext().getLog().error("cannot open database {} on {}", name, owner, r.failure());
      Throwable cause = r.failure();
      return refuseBuffered(cause instanceof InvalidRequestException e
          ? correlation -> new Failed(correlation, FailureReason.INVALID_REQUEST, e.getMessage(), false)
          : correlation -> new Failed(correlation, FailureReason.STORAGE, "cannot open database " + name + " on " + owner + ": " + cause,
              true));
    }
    if (r.busy()) {
      if (stopRequested) {
        answerStashed(this::closing);
        return Behaviors.stopped();
      }
      if (System.nanoTime() - openDeadline < 0) {
        if (!lockBusyLogged) {
          lockBusyLogged = true;
          getContext().getLog().info("database {} is held by its previous owner {}; retrying every {} for up to {}", name,
              OwnerLock.lastOwner(settings.databaseDir(name)), settings.openRetryInterval(), settings.openTimeout());
        }
        timers.startSingleTimer(RetryOpen.INSTANCE, settings.openRetryInterval());
        return this;
      }
      Path dir = settings.databaseDir(name);
      String holder = OwnerLock.lastOwner(dir);
      getContext().getLog().warn("database {} is still held by its previous owner {} after {}; answering PREVIOUS_OWNER_HOLDS",
          name, holder, settings.openTimeout());
      return refuseBuffered(correlation -> new Unavailable(correlation, UnavailableReason.PREVIOUS_OWNER_HOLDS, "database " + name
          + " is still held by its previous owner " + holder + " (" + dir.resolve(OwnerLock.FILE_NAME) + ") after "
          + settings.openTimeout() + "; nothing was written. Retry later: the next request tries to open it again"));
    }
    Opened opened = openSlot.getAndSet(null);
    if (opened == null) {
      return Behaviors.stopped(); // PostStop already took it (cannot happen while this actor runs)
    }
    owned = new Owned(opened.db(), opened.lock(), new RequestHandler(opened.db(), name, owner, opened.lock().epoch(),
        settings.conflictRetries(), this::materializer, this::closing));
    getContext().getLog().info("database {} opened on this node as owner epoch {} ({})", name, owned.lock().epoch(), owner);
    state = State.OPEN;
    if (stopRequested) {
      return beginClose();
    }
    return stash.unstashAll(this);
  }

  /** Answer what waits with {@code reply}; the next request starts a new open (or the shard stops this entity). */
  private Behavior<DatabaseProtocol.Command> refuseBuffered(LongFunction<Refusal> reply) {
    state = State.REFUSED;
    answerStashed(reply);
    return stopRequested ? Behaviors.stopped() : this;
  }

  private Behavior<DatabaseProtocol.Command> onRetryOpen() {
    if (state == State.OPENING && !attemptRunning && !stopRequested) {
      startOpen();
    }
    return this;
  }

  private Behavior<DatabaseProtocol.Command> onStop() {
    getContext().getLog().debug("database {}: its shard stops it ({})", name, state);
    switch (state) {
      case OPEN:
        return beginClose();
      case OPENING:
        stopRequested = true;
        if (!attemptRunning) { // waiting to retry a busy lock: nothing is open
          timers.cancel(RetryOpen.INSTANCE);
          answerStashed(this::closing);
          return Behaviors.stopped();
        }
        return this; // the attempt's result closes what it opened
      case REFUSED:
        return Behaviors.stopped();
      default:
        return this;
    }
  }

  private Behavior<DatabaseProtocol.Command> beginClose() {
    state = State.CLOSING;
    answerStashed(this::closing);
    getContext().getLog().info("closing database {} on {} (owner epoch {}): draining admitted commits", name, owner, owned.lock().epoch());
    Owned closing = owned;
    getContext().pipeToSelf(closing.close(blocking), (ok, err) -> Closed.INSTANCE);
    return this;
  }

  /**
   * Stopped without finishing a close: by a forced stop after the handoff timeout, by the shard
   * failing, or by the actor system terminating. Close in the background; the lock goes only
   * after the database, and at the latest when the actor system has terminated (by then every
   * database supervisor has released its handle).
   */
  private Behavior<DatabaseProtocol.Command> onPostStop() {
    stopped.set(true);
    closeLeftover();
    answerStashed(this::closing);
    Owned open = owned;
    owned = null;
    if (open != null && state == State.OPEN) {
      open.close(blocking);
    }
    if (open != null && open.lock().isHeld()) {
      // A close still runs and releases the lock when done; if the system terminates first, every
      // database supervisor has released its handle by then, so the lock can go.
      getContext().getSystem().getWhenTerminated().whenCompleteAsync((ok, err) -> open.lock().close(), Runnable::run);
    }
    return this;
  }

  /** Close a database an attempt opened after this entity stopped (at most one caller gets it). */
  private void closeLeftover() {
    Opened leftover = openSlot.getAndSet(null);
    if (leftover != null) {
      leftover.close(blocking);
    }
  }

  /** Answer every buffered request with {@code reply} (by its correlation). */
  private void answerStashed(LongFunction<Refusal> reply) {
    if (stash.isEmpty()) {
      return;
    }
    stash.forEach(c -> {
      if (c instanceof Request r) {
        r.answer(reply.apply(r.correlation()));
      }
    });
    stash.clear();
  }

  private Unavailable closing(long correlation) {
    return new Unavailable(correlation, UnavailableReason.CLOSING, "database " + name + " is closing on " + owner
        + " (moving to another node, stopping or passivating); nothing was written. Retry: the next owner will serve it");
  }

  /** Change feeds run here and stop with this entity. */
  private Materializer materializer() {
    if (materializer == null) {
      materializer = Materializer.createMaterializer(getContext());
    }
    return materializer;
  }

  // ---- serving ------------------------------------------------------------------------------

  /** Serve {@code r} when open; otherwise buffer it (opening) or answer it (closing, given up). */
  private Behavior<DatabaseProtocol.Command> onRequest(Request r) {
    switch (state) {
      case OPEN:
        owned.handler().handle(r);
        break;
      case OPENING:
        if (stash.isFull()) {
          r.answer(new Unavailable(r.correlation(), UnavailableReason.BUFFER_FULL, "database " + name + " is opening on " + owner
              + " and " + stash.capacity() + " requests are waiting (commitlane.cluster.open-buffer); nothing was written. Retry later"));
        } else {
          stash.stash(r);
        }
        break;
      case REFUSED:
        stash.stash(r);
        beginOpening();
        break;
      default:
        r.answer(closing(r.correlation()));
    }
    return this;
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }
}
