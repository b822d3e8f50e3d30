package io.commitlane.actors;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * {@code executor-batch} commits per wake-up, then lets its mailbox in before going on.
 */
final class CommitExecutor extends AbstractBehavior<CommitExecutor.Command> {
  sealed interface Command permits Wake {}

  /** There may be work queued. */
  enum Wake implements Command { INSTANCE }

  private final CommitQueue queue;
  private final CommitRunner runner;
  private final CompletionBatcher callbacks;
  private final int batch;
  private final WriteGroupSettings groups;
  private final CommitQueue.Executor self;
  private final AtomicBoolean running;

  private CommitExecutor(ActorContext<Command> ctx, CommitQueue queue, CommitRunner runner, CompletionBatcher callbacks,
      int batch, WriteGroupSettings groups, String threadName, AtomicBoolean running) {
    super(ctx);
    this.groups = groups;
    this.running = running;
    this.queue = queue;
    this.runner = runner;
    this.callbacks = callbacks;
    this.batch = batch;
    ActorRef<Command> ref = ctx.getSelf();
    this.self = new CommitQueue.Executor() {
      @Override
      public void wake() {
        ref.tell(Wake.INSTANCE);
      }

      @Override
      public String toString() {
        return threadName;
      }
    };
    // The pinned dispatcher gives this actor one thread for its whole life: name it for thread dumps.
    Thread.currentThread().setName(threadName);
  }

  static Behavior<Command> create(CommitQueue queue, CommitRunner runner, CompletionBatcher callbacks, int batch,
      WriteGroupSettings groups, String threadName) {
    // Shared by every incarnation (setup runs again on restart): the start is reported once.
    AtomicBoolean running = new AtomicBoolean();
    return Behaviors.setup(ctx -> {
      CommitExecutor e = new CommitExecutor(ctx, queue, runner, callbacks, batch, groups, threadName, running);
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
    for (int n = 0; ; ) {
      if (next == null && n >= batch) {
        getContext().getSelf().tell(Wake.INSTANCE); // batch done: let the mailbox in, then go on
        return;
      }
      CommitRequest r = next != null ? next : queue.poll();
      next = null;
      if (r == null) {
        queue.parkIdle(self);
        reportRunning();
        r = reclaimQueued();
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
      if (!queue.isEmpty()) {
        queue.wakeOne(); // more queued than this executor takes: wake an idle one, or grow
      }
      boolean lone = group == null || group.size() == 1;
      List<CommitRunner.Outcome> outcomes;
      if (lone) {
        outcomes = List.of(runner.execute(r));
        n++;
      } else {
        outcomes = runner.executeGroup(group);
        n += group.size();
      }
      boolean drained = next == null && queue.isEmpty();
      if (drained && lone) {
        // Idle before the caller hears back, so a caller with one commit in flight finds this
        // executor idle for its next commit instead of asking for a second thread. After a group
        // (there is load) it stays awake while it delivers: commits admitted meanwhile are taken
        // without a wake-up message each.
        queue.parkIdle(self);
      }
      for (CommitRunner.Outcome outcome : outcomes) {
        outcome.deliver();
      }
      if (!lone) {
        drained = next == null && queue.isEmpty();
        if (drained) {
          queue.parkIdle(self);
        }
      }
      if (drained) {
        callbacks.flush(); // nothing more queued: the collected callbacks go now
        next = reclaimQueued();
        if (next == null) {
          return;
        }
      }
    }
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
   * Parked idle, look again: an admission may have queued work before it could see this executor
   * idle. Take that work first, then leave the idle stack, so an admission that finds no idle
   * executor also finds its commit already taken and does not grow the pool for it. If an
   * admission popped this executor meanwhile, its Wake arrives later and finds nothing: harmless.
   */
  private CommitRequest reclaimQueued() {
    CommitRequest r = queue.poll();
    if (r != null) {
      queue.unparkIdle(self);
    }
    return r;
  }
}
