package io.commitlane.actors.internal.pipeline;

import io.commitlane.actors.WriteGroupSettings;
import io.commitlane.actors.internal.events.ExecutorStartedEvent;
import io.commitlane.actors.internal.events.ExecutorStoppedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A commit executor: an actor on its own dedicated thread (the pinned commit dispatcher) that
 * drains its database's {@link CommitQueue}. Woken only when idle; once awake it runs up to
 * {@code executor-batch} commits per wake-up, then lets its mailbox in before going on. When the
 * queue is empty it waits on its own thread ({@link ExecutorSignal}: a short spin while commits
 * keep arriving, then a park), so the next admission wakes it without a mailbox round trip; after
 * a while idle it returns to its mailbox.
 */
public final class CommitExecutor extends AbstractBehavior<CommitExecutor.Command> {
  public sealed interface Command permits Wake {}

  /** There may be work queued. */
  public enum Wake implements Command { INSTANCE }

  /**
   * What an executor does with one commit it took: the whole commit ({@link CommitRunner#execute}),
   * or one lane's half of it in two-lane mode. Merged groups always run whole commits.
   */
  @FunctionalInterface
  public interface Step {
    CommitRunner.Outcome run(CommitRequest r);
  }

  private final CommitQueue queue;
  private final CommitRunner runner;
  private final Step step;
  private final CompletionBatcher callbacks;
  private final int batch;
  private final WriteGroupSettings groups;
  private final ExecutorSignal self;
  private final AtomicBoolean running;
  private final String threadName;
  /** Whether the last work this executor ran was a merged group (several callers): see {@link #maySpin()}. */
  private boolean ranGroup;

  private CommitExecutor(ActorContext<Command> ctx, CommitQueue queue, CommitRunner runner, Step step,
      CompletionBatcher callbacks, int batch, WriteGroupSettings groups, String threadName, AtomicBoolean running,
      ExecutorSignal self) {
    super(ctx);
    this.step = step;
    this.groups = groups;
    this.running = running;
    this.queue = queue;
    this.runner = runner;
    this.callbacks = callbacks;
    this.batch = batch;
    this.self = self;
    this.threadName = threadName;
    // The pinned dispatcher gives this actor one thread for its whole life: name it for thread dumps.
    Thread.currentThread().setName(threadName);
    self.bind(Thread.currentThread());
    queue.register(self);
    ExecutorStartedEvent started = new ExecutorStartedEvent(); // rare: allocated before asking
    if (started.shouldCommit()) {
      started.database = queue.database();
      started.executor = threadName;
      started.commit();
    }
  }

  /** An executor that runs whole commits, merging queued ones into write groups when {@code groups} allow. */
  public static Behavior<Command> create(CommitQueue queue, CommitRunner runner, CompletionBatcher callbacks, int batch,
      WriteGroupSettings groups, long spinNanos, String threadName) {
    return create(queue, runner, runner::execute, callbacks, batch, groups, spinNanos, threadName);
  }

  /** An executor that runs {@code step} on each commit it takes (merged groups, if {@code groups} allow, run whole). */
  public static Behavior<Command> create(CommitQueue queue, CommitRunner runner, Step step, CompletionBatcher callbacks, int batch,
      WriteGroupSettings groups, long spinNanos, String threadName) {
    // Shared by every incarnation (setup runs again on restart): the start is reported once.
    AtomicBoolean running = new AtomicBoolean();
    AtomicReference<ActorRef<Command>> ref = new AtomicReference<>();
    ExecutorSignal signal = new ExecutorSignal(threadName, spinNanos, () -> ref.get().tell(Wake.INSTANCE));
    return Behaviors.setup(ctx -> {
      ref.set(ctx.getSelf());
      CommitExecutor e = new CommitExecutor(ctx, queue, runner, step, callbacks, batch, groups, threadName, running, signal);
      // Started because work was queued (or restarted with work maybe left). Drain from a message,
      // not here: a failure during setup stops the actor instead of restarting it.
      ctx.getSelf().tell(Wake.INSTANCE);
      return e;
    });
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Wake.class, w -> {
          drain();
          return this;
        })
        .onSignal(PostStop.class, s -> {
          reportRunning(); // stopped before its first drain: it is no longer "starting" either
          queue.executorStopped(self);
          ExecutorStoppedEvent stopped = new ExecutorStoppedEvent();
          if (stopped.shouldCommit()) {
            stopped.database = queue.database();
            stopped.executor = threadName;
            stopped.commit();
          }
          return this;
        })
        .build();
  }

  /**
   * Stop counting as "starting" only once this executor is visibly idle or has taken work: until
   * then an admission must not grow the pool, since this executor is about to drain.
   */
  private void reportRunning() {
    if (running.compareAndSet(false, true)) {
      queue.executorRunning();
    }
  }

  private void drain() {
    callbacks.collect();
    try {
      drainBatch();
    } finally {
      callbacks.stop(); // hand over every collected callback, also when a commit threw an Error
    }
  }

  private void drainBatch() {
    CommitRequest next = null;
    long started = System.nanoTime();
    for (int n = 0; ; ) {
      if (next == null && n >= batch) {
        getContext().getSelf().tell(Wake.INSTANCE); // batch done: let the mailbox in, then go on
        return;
      }
      CommitRequest r = next;
      next = null;
      if (r == null && (r = queue.poll()) != null) {
        self.running();
      }
      if (r == null) {
        self.idle(maySpin());
        reportRunning();
        callbacks.flush(); // before waiting: a callback collected earlier in this drain must not wait with it
        r = awaitWork(mailboxDue(n, started));
        if (r == null) {
          return;
        }
      }
      reportRunning();
      List<CommitRequest> group = null;
      if (groups.enabled() && !queue.isEmpty()) {
        group = new ArrayList<>();
        group.add(r);
        next = fillGroup(group);
      }
      self.working(System.nanoTime(), queue.isBrief(r, group));
      CommitRequest waiting = queue.peek();
      if (waiting != null) {
        queue.wakeOne(waiting); // more queued than this executor takes: wake an idle one, or grow (unless all of it is brief)
      }
      boolean lone = group == null || group.size() == 1;
      ranGroup = !lone;
      List<CommitRunner.Outcome> outcomes;
      if (lone) {
        outcomes = List.of(step.run(r));
        n++;
      } else {
        outcomes = runner.executeGroup(group);
        n += group.size();
      }
      boolean drained = next == null && queue.isEmpty();
      if (drained && lone) {
        // Idle before the caller hears back, so a caller with one commit in flight finds this
        // executor idle (spinning) for its next commit instead of asking for a second thread. After
        // a group (there is load) it stays running while it delivers: commits admitted meanwhile
        // are taken without a claim each.
        self.idle(queue.othersIdle(self));
      }
      if (!lone) {
        callbacks.deliveringGroup();
      }
      for (CommitRunner.Outcome outcome : outcomes) {
        outcome.deliver();
      }
      if (!lone) {
        callbacks.flush(); // the group's callbacks as one dispatcher task
        drained = next == null && queue.isEmpty();
        if (drained) {
          self.idle(false);
        }
      }
      if (drained) {
        callbacks.flush(); // nothing more queued: the collected callbacks go now
        next = awaitWork(mailboxDue(n, started));
        if (next == null) {
          return;
        }
      }
    }
  }

  /**
   * Spin before parking only when this executor alone keeps up with the arrivals: its last work
   * was a lone commit and every other executor of the database is idle. Under load (merged groups,
   * several executors running) a spinner would take commits one by one as they arrive, and hold a
   * core that callers and callbacks need; parking lets the queue fill into the next group.
   */
  private boolean maySpin() {
    return !ranGroup && queue.othersIdle(self);
  }

  /**
   * Add what is already queued to {@code group} (never wait for more) until a bound would be
   * passed. Returns a commit taken that did not fit: it runs next, first in its own group.
   */
  private CommitRequest fillGroup(List<CommitRequest> group) {
    long keys = group.get(0).txn.writeCount();
    long bytes = group.get(0).txn.writeBytes();
    while (group.size() < groups.maxMembers()) {
      CommitRequest r = queue.poll();
      if (r == null) {
        return null;
      }
      keys += r.txn.writeCount();
      bytes += r.txn.writeBytes();
      if (keys > groups.maxKeys() || bytes > groups.maxBytes()) {
        return r;
      }
      group.add(r);
    }
    return null;
  }

  /**
   * Whether this drain has run long enough ({@code executor-batch} commits, or the park limit in
   * time) that the executor should pass through its mailbox when it next runs out of work. It
   * does so idle (dormant), never while running, so that an admission in the meantime claims it
   * instead of asking for another executor.
   */
  private boolean mailboxDue(int n, long started) {
    return n >= batch || System.nanoTime() - started > ExecutorSignal.PARK_LIMIT;
  }

  /**
   * Idle ({@link ExecutorSignal#idle} was called): look at the queue again, then wait on this
   * thread until work is queued or an admission claims this executor. Work queued before this
   * executor became idle is seen by the first look; an admission after it claims this executor.
   * Returns null once this executor is dormant: the handler returns and the mailbox is let in (a
   * claim from then on sends a {@code Wake}). With {@code mailboxDue} it goes dormant at once
   * rather than wait. A claim whose commit is gone (taken by this executor before the claim
   * landed, or by another) leaves it idle again.
   */
  private CommitRequest awaitWork(boolean mailboxDue) {
    while (true) {
      CommitRequest r = queue.poll();
      if (r != null) {
        self.resume();
        return r;
      }
      if (mailboxDue) {
        self.goDormant(); // fails only if claimed: then the state says CLAIMED below
      }
      int s = self.state();
      if (s == ExecutorSignal.CLAIMED) {
        self.reidle(maySpin()); // claimed, but the commit was taken already (by this executor before, or another)
      } else if (s == ExecutorSignal.DORMANT) {
        self.leaveForMailbox();
        return null;
      } else {
        self.await();
      }
    }
  }
}
