package io.commitlane.actors;

import io.commitlane.storage.Transaction;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The supervisor of one open database. It owns the storage handle and the commit executors,
 * starts executors when the queue asks for one (up to {@code commitThreads}), restarts a failed
 * one, drains and releases everything on {@link Close}. It is not on the per-commit path: the
 * facade admits commits into the {@link CommitQueue} directly. Actors that only have this
 * actor's ref may still send {@link Commit}; that costs one hop more.
 */
public final class DatabaseActor extends AbstractBehavior<DatabaseActor.Command> {
  /** The supervisor's protocol. */
  public sealed interface Command permits Commit, GetStats, CreateStore, DropStore, Close, Grow, Drained {}

  /** Commit a transaction (local only: it carries the open transaction); the reply goes to {@code replyTo}. */
  public record Commit(Transaction txn, ActorRef<CommitReply> replyTo) implements Command {}

  /** Ask for a {@link PipelineStats} snapshot. */
  public record GetStats(ActorRef<PipelineStats> replyTo) implements Command {}

  /**
   * Create a named store, or confirm it exists. If an earlier store of that name is still being
   * dropped, the reply comes once that drop finished and the new store exists.
   */
  public record CreateStore(String name, ActorRef<StoreReply> replyTo) implements Command {}

  /**
   * Drop a named store: logical when this actor handles the message (new commits and reads on it
   * fail with {@link io.commitlane.storage.StoreDroppedException}), physical once every commit
   * admitted before has ended; {@link StoreReply.Dropped} comes then.
   */
  public record DropStore(String name, ActorRef<StoreReply> replyTo) implements Command {}

  /** Drain admitted commits, refuse new ones, stop executors and release the database. */
  public record Close(ActorRef<Done> replyTo) implements Command {}

  /** From the queue: work is waiting and no executor is idle. */
  enum Grow implements Command { INSTANCE }

  /** Every admitted commit completed after Close. */
  private record Drained(ActorRef<Done> replyTo) implements Command {}

  private final Pipeline pipeline;
  private int executorsSpawned;

  private DatabaseActor(ActorContext<Command> ctx, Pipeline pipeline) {
    super(ctx);
    this.pipeline = pipeline;
  }

  static Behavior<Command> create(Pipeline pipeline) {
    return Behaviors.setup(ctx -> new DatabaseActor(ctx, pipeline));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Commit.class, this::onCommit)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(CreateStore.class, this::onCreateStore)
        .onMessage(DropStore.class, this::onDropStore)
        .onMessage(Grow.class, g -> onGrow())
        .onMessage(Close.class, this::onClose)
        .onMessage(Drained.class, this::onDrained)
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onCommit(Commit c) {
    pipeline.commit(c.txn(), c.replyTo());
    return this;
  }

  private Behavior<Command> onGetStats(GetStats g) {
    g.replyTo().tell(pipeline.stats());
    return this;
  }

  /** The reply is told from the completion executor: this actor does not wait for the store. */
  private Behavior<Command> onCreateStore(CreateStore c) {
    pipeline.createStore(c.name()).whenComplete((store, err) -> c.replyTo().tell(
        err == null ? new StoreReply.Created(c.name(), store.generation()) : new StoreReply.Failed(c.name(), err)));
    return this;
  }

  /**
   * The logical drop happens here, on this actor's thread (it syncs one small file, as rare as a
   * close); the reply waits for the physical drop on the completion executor.
   */
  private Behavior<Command> onDropStore(DropStore d) {
    pipeline.dropStore(d.name()).whenComplete((done, err) -> d.replyTo().tell(
        err == null ? new StoreReply.Dropped(d.name()) : new StoreReply.Failed(d.name(), err)));
    return this;
  }

  private Behavior<Command> onGrow() {
    if (!pipeline.queue.mayGrow()) {
      pipeline.queue.growthDeclined();
      return this;
    }
    int n = ++executorsSpawned;
    String thread = "commitlane-commit-" + pipeline.name + "-" + n;
    Behavior<CommitExecutor.Command> executor = Behaviors.supervise(
            CommitExecutor.create(pipeline.queue, pipeline.runner, pipeline.callbacks, pipeline.settings.executorBatch(),
                pipeline.settings.writeGroups(), thread))
        .onFailure(Throwable.class, SupervisorStrategy.restart()); // Errors too: the commit it held has already failed with the cause
    // Counted before the spawn: the executor's setup runs on its own thread and may report that it
    // is running before spawn() returns here; counting afterwards let the count dip below zero
    // and a growth request in that window was refused and lost.
    pipeline.queue.executorStarted();
    try {
      pipeline.faults.beforeExecutorStart(n);
      getContext().spawn(executor, "executor-" + n, DispatcherSelector.fromConfig("commitlane.commit-dispatcher"));
    } catch (RuntimeException | OutOfMemoryError e) {
      // No thread for this executor. With others running they carry the load; with none, commits
      // run inline on their callers' threads (and what is queued now, here), never lost.
      pipeline.queue.executorFailedToStart();
      if (pipeline.queue.executors() == 0) {
        getContext().getLog().error("no commit executor could be started for {}; commits run inline on their callers' threads", pipeline.name, e);
        pipeline.runInline();
      } else {
        getContext().getLog().warn("could not start commit executor {} for {}; {} executor(s) keep running", n, pipeline.name,
            pipeline.queue.executors(), e);
      }
    }
    return this;
  }

  private Behavior<Command> onClose(Close c) {
    getContext().pipeToSelf(pipeline.gate.close(), (ok, err) -> new Drained(c.replyTo()));
    return this;
  }

  private Behavior<Command> onDrained(Drained d) {
    pipeline.release();
    d.replyTo().tell(Done.getInstance());
    return Behaviors.stopped();
  }

  /** Stopped by Close, or by the actor system terminating: fail what is left, release the database. */
  private Behavior<Command> onPostStop() {
    pipeline.gate.close();
    pipeline.queue.stop();
    pipeline.release();
    return this;
  }
}
