package io.commitlane.actors.internal.lifecycle;

import static io.commitlane.actors.internal.pipeline.Failures.unwrap;

import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseActor;
import io.commitlane.actors.internal.log.TransactionLogActor;
import io.commitlane.actors.internal.pipeline.CommitExecutor;
import io.commitlane.actors.internal.pipeline.CommitQueue;
import io.commitlane.actors.internal.pipeline.Pipeline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The supervisor of one open database: one per path per actor system, shared by every handle of
 * the path. It opens the storage handle and the transaction logs (replay) on the lifecycle
 * dispatcher, owns the commit executors, the transaction-log actor and the database's protocol
 * actor as children, starts executors when the queue asks for one (up to {@code commitThreads}),
 * restarts a failed one, and on {@link Close} drains every handle's admitted commits, stops the
 * log actor and releases the database. It is not on the per-commit path: handles admit commits
 * into the {@link CommitQueue} directly.
 *
 * <p>One behavior per state, its state in its parameters: {@link #opening}, {@link #serving},
 * {@link #closing}. Opening and releasing run on the lifecycle dispatcher, and a stop without a
 * close hands the release to a thread of its own, which the extension waits for when the actor
 * system terminates. It blocks its thread in one case only: when no commit executor can be
 * started at all (no thread could be created), it runs the commits queued at that moment itself
 * ({@link Pipeline#runInline}), and later commits run on their callers' threads.
 */
public final class DatabaseSupervisor {
  public sealed interface Command permits Opened, OpenFailed, Grow, Close, Drained, LogStopped, Released {}

  /** The storage handle and the logs are open: serve. */
  private record Opened(Pipeline pipeline) implements Command {}

  private record OpenFailed(Throwable cause) implements Command {}

  /**
   * From the queue: work is waiting and no executor is idle. Start one more executor for {@code
   * lane} (the admission queue, or the two-lane mode's write lane), if it may grow.
   */
  record Grow(CommitQueue lane) implements Command {}

  /** From the extension: the last handle closed, or the actor system shuts down. */
  public enum Close implements Command { INSTANCE }

  /** Every handle's admitted commits completed after {@link Close}. */
  private enum Drained implements Command { INSTANCE }

  private enum LogStopped implements Command { INSTANCE }

  private record Released(Throwable failure) implements Command {}

  /** What the supervisor holds once the database is open; a new value when an executor starts. */
  private record Open(Pipeline pipeline, ActorRef<TransactionLogActor.Command> logActor, int executorsSpawned) {
    Open withExecutor() {
      return new Open(pipeline, logActor, executorsSpawned + 1);
    }
  }

  private final ActorContext<Command> ctx;
  private final OpenDatabase database;
  private final Executor lifecycle;
  private final CompletableFuture<Pipeline> opening;

  private DatabaseSupervisor(ActorContext<Command> ctx, OpenDatabase database, Executor lifecycle) {
    this.ctx = ctx;
    this.database = database;
    this.lifecycle = lifecycle;
    // Replays what the last flush did not hold before any commit can reach the database.
    this.opening = CompletableFuture.supplyAsync(() -> database.readOnly
        ? Pipeline.openReadOnly(database.name, database.path, database.settings, database.completions, database.faults)
        : Pipeline.open(database.name, database.path, database.settings, database.completions, database.faults), lifecycle);
    ctx.pipeToSelf(opening, (p, err) -> err == null ? new Opened(p) : new OpenFailed(unwrap(err)));
  }

  public static Behavior<Command> create(OpenDatabase database, Executor lifecycle) {
    return Behaviors.setup(ctx -> new DatabaseSupervisor(ctx, database, lifecycle).opening(false));
  }

  // ---- states -------------------------------------------------------------------------------

  /** @param closeRequested a close came while it opened: close as soon as it is open */
  private Behavior<Command> opening(boolean closeRequested) {
    return Behaviors.receive(Command.class)
        .onMessage(Opened.class, o -> onOpened(o, closeRequested))
        .onMessage(OpenFailed.class, this::onOpenFailed)
        .onMessage(Close.class, c -> opening(true))
        .onSignal(PostStop.class, s -> stoppedWhileOpening())
        .build();
  }

  private Behavior<Command> serving(Open open) {
    return Behaviors.receive(Command.class)
        .onMessage(Grow.class, g -> serving(grow(open, g)))
        .onMessage(Close.class, c -> onClose(open))
        .onMessage(LogStopped.class, l -> {
          ctx.getLog().error("the transaction-log actor of {} stopped; flushes are no longer recorded until the database reopens",
              database.path);
          return Behaviors.same();
        })
        .onSignal(PostStop.class, s -> stoppedUnreleased(open, null))
        .build();
  }

  /** @param releasing the release running on the lifecycle dispatcher, or null before it started */
  private Behavior<Command> closing(Open open, CompletableFuture<Void> releasing) {
    return Behaviors.receive(Command.class)
        .onMessage(Grow.class, g -> closing(grow(open, g), releasing)) // the drain may still need executors
        .onMessage(Close.class, c -> Behaviors.same())
        .onMessage(Drained.class, d -> {
          ctx.stop(open.logActor()); // first, so no flush bookkeeping runs while the logs close
          return Behaviors.same();
        })
        .onMessage(LogStopped.class, l -> onLogStopped(open))
        .onMessage(Released.class, r -> onReleased(open, r))
        .onSignal(PostStop.class, s -> releasing != null && releasing.isDone() ? stoppedReleased(open, releasing)
            : stoppedUnreleased(open, releasing))
        .build();
  }

  // ---- handlers -----------------------------------------------------------------------------

  private Behavior<Command> onOpened(Opened o, boolean closeRequested) {
    Pipeline pipeline = o.pipeline();
    // Restarted on failure like an executor: a failed flush record or purge does not stop the database.
    ActorRef<TransactionLogActor.Command> logActor = ctx.spawn(Behaviors.supervise(TransactionLogActor.create(pipeline.logs(),
            database.settings.purgeInterval(), pipeline.requests(), database.settings.requestIds().purgeInterval(), pipeline.callbacks(),
            lifecycle))
        .onFailure(Exception.class, SupervisorStrategy.restart()), "txlog", DispatcherSelector.fromConfig("commitlane.log-dispatcher"));
    ctx.watchWith(logActor, LogStopped.INSTANCE);
    pipeline.listenForFlushes(pipeline.db().addFlushListener(seq -> logActor.tell(new TransactionLogActor.FlushCompleted(seq))));
    ActorRef<Command> self = ctx.getSelf();
    for (CommitQueue lane : pipeline.lanes().queues()) {
      Grow grow = new Grow(lane);
      lane.onGrowth(() -> self.tell(grow));
    }
    // The database's reference: the protocol actor, serving a handle of its own (not counted: it
    // lives as long as the database).
    database.endpoint(ctx.spawn(DatabaseActor.create(new CommitlaneDatabase(database, pipeline)), "database"));
    if (!database.readOnly) {
      // The first executor of each lane starts at open, not at the first commit.
      pipeline.lanes().queues().forEach(CommitQueue::requestGrowth);
    }
    database.opened.complete(pipeline);
    Open open = new Open(pipeline, logActor, 0);
    return closeRequested ? onClose(open) : serving(open);
  }

  private Behavior<Command> onOpenFailed(OpenFailed f) {
    ctx.getLog().error("cannot open database {}", database.path, f.cause());
    database.databases.openFailed(database, f.cause());
    return Behaviors.stopped();
  }

  /** Starts one more executor for the lane if it may grow; the state with it counted. */
  private Open grow(Open open, Grow g) {
    CommitQueue lane = g.lane();
    if (!lane.mayGrow()) {
      lane.growthDeclined();
      return open;
    }
    Open grown = open.withExecutor();
    Pipeline pipeline = open.pipeline();
    int n = grown.executorsSpawned();
    Behavior<CommitExecutor.Command> executor = Behaviors.supervise(pipeline.lanes().executor(pipeline, lane, n))
        .onFailure(Throwable.class, SupervisorStrategy.restart()); // Errors too: the commit it held has already failed with the cause
    // Counted before the spawn: the executor's setup runs on its own thread and may report that it
    // is running before spawn() returns here; counting afterwards let the count dip below zero
    // and a growth request in that window was refused and lost.
    lane.executorStarted();
    try {
      pipeline.faults().beforeExecutorStart(n);
      ctx.spawn(executor, "executor-" + n, DispatcherSelector.fromConfig("commitlane.commit-dispatcher"));
    } catch (RuntimeException | OutOfMemoryError e) {
      // No thread for this executor. With others running they carry the load; with none, commits
      // run inline on their callers' threads (and what is queued now, here), never lost.
      lane.executorFailedToStart();
      if (lane.executors() == 0) {
        ctx.getLog().error("no commit executor could be started for {}; commits run inline on their callers' threads", pipeline.name(), e);
        pipeline.lanes().runInline(pipeline, lane);
      } else {
        ctx.getLog().warn("could not start commit executor {} for {}; {} executor(s) keep running", n, pipeline.name(),
            lane.executors(), e);
      }
    }
    return grown;
  }

  /** Refuse every handle's new commits, and wait for the admitted ones. */
  private Behavior<Command> onClose(Open open) {
    ctx.pipeToSelf(open.pipeline().closeGates(), (ok, err) -> Drained.INSTANCE);
    return closing(open, null);
  }

  /** The log actor stopped after the drain: release (blocking: closing files, RocksDB's close) on the lifecycle dispatcher. */
  private Behavior<Command> onLogStopped(Open open) {
    CompletableFuture<Void> releasing = CompletableFuture.runAsync(open.pipeline()::release, lifecycle);
    ctx.pipeToSelf(releasing, (ok, err) -> new Released(err));
    return closing(open, releasing);
  }

  private Behavior<Command> onReleased(Open open, Released r) {
    Pipeline pipeline = open.pipeline();
    Throwable failure = r.failure() != null ? r.failure() : pipeline.closeFailure();
    if (r.failure() != null) {
      ctx.getLog().error("releasing database {} failed", database.path, r.failure());
    }
    database.databases.released(database, failure);
    // Idle executors wait in their mailboxes, where the stop reaches them at once.
    pipeline.lanes().queues().forEach(CommitQueue::dismissIdle);
    return Behaviors.stopped(); // the executors and the protocol actor stop with it
  }

  // ---- stopped without a close (the actor system terminating past the shutdown phase, or a failure here) ----

  /**
   * Stopped after the release finished: the normal end of a close (after {@link Released}), or a
   * stop that came just before its message. Nothing is left to release; the extension hears of
   * it (a no-op when {@link #onReleased} told it already).
   */
  private Behavior<Command> stoppedReleased(Open open, CompletableFuture<Void> releasing) {
    Throwable failure = null;
    try {
      releasing.join();
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      failure = unwrap(e);
    }
    database.databases.released(database, failure != null ? failure : open.pipeline().closeFailure());
    return Behaviors.same();
  }

  /** Stopped while it opened: release the database once its open finishes, off this thread. */
  private Behavior<Command> stoppedWhileOpening() {
    if (opening.isCompletedExceptionally()) {
      database.databases.released(database); // the open failed (the extension heard of it): nothing to release
      return Behaviors.same();
    }
    database.databases.stopping(database);
    opening.whenCompleteAsync((opened, err) -> {
      try {
        if (opened != null) {
          opened.release();
        }
      } finally {
        database.databases.released(database);
      }
    }, releaser());
    return Behaviors.same();
  }

  /**
   * Stopped before the release finished: fail what is still queued now, and release the database
   * (after a release already running) off this thread. The extension waits for it when the actor
   * system terminates, so that a terminated system holds no database.
   */
  private Behavior<Command> stoppedUnreleased(Open open, CompletableFuture<Void> releasing) {
    ctx.getLog().warn("database {} stopped before its close finished (the actor system terminating past the close phase, or a"
        + " failure): failing what is still queued and releasing it on a thread of its own", database.path);
    database.databases.stopping(database);
    Pipeline pipeline = open.pipeline();
    pipeline.closeGates();
    // The admission queue first: nothing more is handed to a later lane.
    pipeline.lanes().queues().forEach(CommitQueue::stop);
    CompletableFuture<Void> before = releasing == null ? CompletableFuture.completedFuture(null) : releasing.exceptionally(e -> null);
    before.whenCompleteAsync((ok, err) -> {
      try {
        pipeline.release(); // a no-op once released
      } finally {
        database.databases.released(database);
      }
    }, releaser());
    return Behaviors.same();
  }

  /**
   * A thread of its own for a release after a stop: the lifecycle dispatcher may be shutting down
   * with the actor system, and no dispatcher thread should wait for RocksDB's close. Not a daemon:
   * a JVM that exits meanwhile still lets RocksDB close its files.
   */
  private Executor releaser() {
    return task -> {
      Thread t = new Thread(task, "commitlane-release-" + database.name);
      t.setDaemon(false);
      t.start();
    };
  }

}
