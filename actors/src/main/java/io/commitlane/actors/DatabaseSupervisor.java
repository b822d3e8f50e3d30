package io.commitlane.actors;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
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
 * <p>One behavior per state: {@link #opening()}, {@link #serving()}, {@link #closing()}.
 */
final class DatabaseSupervisor {
  /** How long a stop during an open or a release waits for it, so that nothing is left open. */
  private static final Duration STOP_WAIT = Duration.ofMinutes(1);

  sealed interface Command permits Opened, OpenFailed, Grow, Close, Drained, LogStopped, Released {}

  /** The storage handle and the logs are open: serve. */
  private record Opened(Pipeline pipeline) implements Command {}

  private record OpenFailed(Throwable cause) implements Command {}

  /** From the queue: work is waiting and no executor is idle. */
  /** Start one more executor for {@code lane} (the admission queue, or the two-lane mode's write lane), if it may grow. */
  record Grow(CommitQueue lane) implements Command {}

  /** From the extension: the last handle closed, or the actor system shuts down. */
  enum Close implements Command { INSTANCE }

  /** Every handle's admitted commits completed after {@link Close}. */
  private enum Drained implements Command { INSTANCE }

  private enum LogStopped implements Command { INSTANCE }

  private record Released(Throwable failure) implements Command {}

  private final ActorContext<Command> ctx;
  private final OpenDatabase database;
  private final Executor lifecycle;
  private final CompletableFuture<Pipeline> opening;
  private Pipeline pipeline;
  private ActorRef<TransactionLogActor.Command> logActor;
  private CompletableFuture<Void> releasing;
  private boolean closeRequested;
  private int executorsSpawned;

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

  static Behavior<Command> create(OpenDatabase database, Executor lifecycle) {
    return Behaviors.setup(ctx -> new DatabaseSupervisor(ctx, database, lifecycle).opening());
  }

  // ---- states -------------------------------------------------------------------------------

  private Behavior<Command> opening() {
    return Behaviors.receive(Command.class)
        .onMessage(Opened.class, this::onOpened)
        .onMessage(OpenFailed.class, this::onOpenFailed)
        .onMessage(Close.class, c -> {
          closeRequested = true; // closed as soon as it is open
          return Behaviors.same();
        })
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> serving() {
    return Behaviors.receive(Command.class)
        .onMessage(Grow.class, this::onGrow)
        .onMessage(Close.class, c -> onClose())
        .onMessage(LogStopped.class, l -> onLogStopped())
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> closing() {
    return Behaviors.receive(Command.class)
        .onMessage(Grow.class, this::onGrow) // the drain may still need executors
        .onMessage(Close.class, c -> Behaviors.same())
        .onMessage(Drained.class, d -> onDrained())
        .onMessage(LogStopped.class, l -> onLogStopped())
        .onMessage(Released.class, this::onReleased)
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  // ---- handlers -----------------------------------------------------------------------------

  private Behavior<Command> onOpened(Opened o) {
    pipeline = o.pipeline();
    // Restarted on failure like an executor: a failed flush record or purge does not stop the database.
    logActor = ctx.spawn(Behaviors.supervise(TransactionLogActor.create(pipeline.logs, database.settings.purgeInterval(), pipeline.requests,
            database.settings.requestIds().purgeInterval(), pipeline.callbacks, lifecycle))
        .onFailure(Exception.class, SupervisorStrategy.restart()), "txlog", DispatcherSelector.fromConfig("commitlane.log-dispatcher"));
    ctx.watchWith(logActor, LogStopped.INSTANCE);
    ActorRef<TransactionLogActor.Command> log = logActor;
    pipeline.flushListener = pipeline.db.addFlushListener(seq -> log.tell(new TransactionLogActor.FlushCompleted(seq)));
    ActorRef<Command> self = ctx.getSelf();
    Grow admission = new Grow(pipeline.queue);
    pipeline.queue.onGrowth(() -> self.tell(admission));
    if (pipeline.writes != null) {
      Grow writeLane = new Grow(pipeline.writes.queue);
      pipeline.writes.queue.onGrowth(() -> self.tell(writeLane));
    }
    // The database's reference: the protocol actor, serving a handle of its own (not counted: it
    // lives as long as the database).
    database.endpoint(ctx.spawn(DatabaseActor.create(new CommitlaneDatabase(database, pipeline)), "database"));
    if (database.settings.mode() != PipelineMode.LEGACY && !database.readOnly) {
      pipeline.queue.requestGrowth(); // the first executor starts at open, not at the first commit
    }
    if (pipeline.writes != null && !database.readOnly) {
      pipeline.writes.queue.requestGrowth();
    }
    database.opened.complete(pipeline);
    return closeRequested ? onClose() : serving();
  }

  private Behavior<Command> onOpenFailed(OpenFailed f) {
    ctx.getLog().error("cannot open database {}", database.path, f.cause());
    database.extension.openFailed(database, f.cause());
    return Behaviors.stopped();
  }

  private Behavior<Command> onGrow(Grow g) {
    CommitQueue lane = g.lane();
    if (!lane.mayGrow()) {
      lane.growthDeclined();
      return Behaviors.same();
    }
    int n = ++executorsSpawned;
    Behavior<CommitExecutor.Command> executor = Behaviors.supervise(executorFor(lane, n))
        .onFailure(Throwable.class, SupervisorStrategy.restart()); // Errors too: the commit it held has already failed with the cause
    // Counted before the spawn: the executor's setup runs on its own thread and may report that it
    // is running before spawn() returns here; counting afterwards let the count dip below zero
    // and a growth request in that window was refused and lost.
    lane.executorStarted();
    try {
      pipeline.faults.beforeExecutorStart(n);
      ctx.spawn(executor, "executor-" + n, DispatcherSelector.fromConfig("commitlane.commit-dispatcher"));
    } catch (RuntimeException | OutOfMemoryError e) {
      // No thread for this executor. With others running they carry the load; with none, commits
      // run inline on their callers' threads (and what is queued now, here), never lost.
      lane.executorFailedToStart();
      if (lane.executors() == 0) {
        ctx.getLog().error("no commit executor could be started for {}; commits run inline on their callers' threads", pipeline.name, e);
        if (lane == pipeline.queue) {
          pipeline.runInline();
        } else {
          pipeline.writes.runInline(pipeline.runner);
        }
      } else {
        ctx.getLog().warn("could not start commit executor {} for {}; {} executor(s) keep running", n, pipeline.name,
            lane.executors(), e);
      }
    }
    return Behaviors.same();
  }

  /**
   * Executor {@code n}: in two-lane mode the admission queue's one executor is the log lane and
   * the write lane's executors write what it prepared (neither merges groups); otherwise each runs
   * whole commits.
   */
  private Behavior<CommitExecutor.Command> executorFor(CommitQueue lane, int n) {
    PipelineSettings s = pipeline.settings;
    long spin = s.executorSpin().toNanos();
    CommitRunner runner = pipeline.runner;
    WriteLane writes = pipeline.writes;
    if (writes == null) {
      return CommitExecutor.create(lane, runner, pipeline.callbacks, s.executorBatch(), s.writeGroups(), spin,
          "commitlane-commit-" + pipeline.name + "-" + n);
    }
    if (lane == pipeline.queue) {
      return CommitExecutor.create(lane, runner, r -> runner.prepare(r, writes), pipeline.callbacks, s.executorBatch(),
          WriteGroupSettings.off(), spin, "commitlane-log-lane-" + pipeline.name);
    }
    return CommitExecutor.create(lane, runner, runner::writePrepared, pipeline.callbacks, s.executorBatch(),
        WriteGroupSettings.off(), spin, "commitlane-commit-" + pipeline.name + "-" + n);
  }

  /** Refuse every handle's new commits, and wait for the admitted ones. */
  private Behavior<Command> onClose() {
    ctx.pipeToSelf(pipeline.closeGates(), (ok, err) -> Drained.INSTANCE);
    return closing();
  }

  /** Drained: stop the log actor first, so no flush bookkeeping runs while the logs close. */
  private Behavior<Command> onDrained() {
    ctx.stop(logActor);
    return Behaviors.same();
  }

  private Behavior<Command> onLogStopped() {
    if (!pipeline.isClosing()) {
      ctx.getLog().error("the transaction-log actor of {} stopped; flushes are no longer recorded until the database reopens", database.path);
      return Behaviors.same();
    }
    // Blocking (closing files, RocksDB's close): on the lifecycle dispatcher, not this actor's.
    releasing = CompletableFuture.runAsync(pipeline::release, lifecycle);
    ctx.pipeToSelf(releasing, (ok, err) -> new Released(err));
    return Behaviors.same();
  }

  private Behavior<Command> onReleased(Released r) {
    Throwable failure = r.failure() != null ? r.failure() : pipeline.closeFailure();
    if (r.failure() != null) {
      ctx.getLog().error("releasing database {} failed", database.path, r.failure());
    }
    database.extension.released(database, failure);
    pipeline.queue.dismissIdle(); // idle executors wait in their mailboxes, where the stop reaches them at once
    if (pipeline.writes != null) {
      pipeline.writes.queue.dismissIdle();
    }
    return Behaviors.stopped(); // the executors and the protocol actor stop with it
  }

  /**
   * Stopped: after {@link Released}, or without a close (the actor system terminating past the
   * shutdown phase, or a failure here). Fail what is still queued and release the database
   * before returning, so that an actor system that has terminated holds no database any more.
   */
  private Behavior<Command> onPostStop() {
    try {
      if (pipeline == null) {
        Pipeline opened = waitFor(opening);
        if (opened != null) {
          opened.release();
        }
      } else {
        pipeline.closeGates();
        pipeline.queue.stop();
        if (pipeline.writes != null) {
          pipeline.writes.queue.stop(); // after the admission queue: nothing more is handed to it
        }
        if (releasing != null) {
          waitFor(releasing);
        }
        pipeline.release(); // a no-op once released
      }
    } finally {
      database.extension.released(database);
    }
    return Behaviors.same();
  }

  private <T> T waitFor(CompletableFuture<T> f) {
    try {
      return f.get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null; // failed: nothing to release; timed out: logged by whoever waits on it
    }
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }
}
